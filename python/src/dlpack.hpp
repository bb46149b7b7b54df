// dlpack.hpp: tensors in through DLPack: any object with __dlpack__ / __dlpack_device__ (numpy,
// PyTorch, CuPy, JAX) as a kernels::TensorView, the producer's memory kept alive for the call.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include "tessel/kernels/tensor_view.hpp"

namespace tessel::python {

namespace py = pybind11;

// Where a tensor lives, as DLPack says (kDLCPU, kDLCUDA, ...).
struct TensorDevice {
  int type = 1;  // DLDeviceType: 1 = kDLCPU, 2 = kDLCUDA
  int id = 0;
  bool cpu() const { return type == 1; }
  bool cuda() const { return type == 2; }
};
std::string device_name(const TensorDevice& d);  // "cpu", "cuda:0", "kDLROCM(10):0"

// One imported tensor. `view.data` is the address of element 0 (byte_offset applied): a host
// address for a CPU tensor, a device address for a CUDA one. Holding it holds the producer's
// memory: the DLManagedTensor's deleter runs when the last copy goes.
struct Imported {
  kernels::TensorView view;
  TensorDevice device;
  py::object object;                 // the Python object it came from
  std::shared_ptr<void> managed;     // the consumed DLManagedTensor
};

// The device a DLPack object is on (its __dlpack_device__()); throws TypeError for an object that
// is not a DLPack tensor, naming `what` ("a", "out") and its type.
TensorDevice dlpack_device(py::handle obj, const std::string& what);

// Imports `obj` per the DLPack protocol: __dlpack__() for a CPU tensor, __dlpack__(stream=S) for a
// CUDA one, S being the stream tessel will use (`cuda_stream`: the CUstream; 0, the legacy default
// stream, is passed as 1, as the protocol spells it). The capsule is renamed "used_dltensor"
// (consumed). Throws tessel::Error naming `what` for an unsupported element type (and lanes != 1).
Imported import_dlpack(py::handle obj, const std::string& what, std::optional<uint64_t> cuda_stream = {});

// Whether this build's DLPack header has the fp8 codes (DLPack >= 1.1), so that fp8 tensors import.
bool dlpack_has_fp8();
// The header's version, "0.6" or "1.1".
std::string dlpack_version();

}  // namespace tessel::python
