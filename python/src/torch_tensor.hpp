// torch_tensor.hpp: a CUDA torch.Tensor read through its attributes (data_ptr, shape, stride,
// dtype), the fast road beside DLPack. torch's __dlpack__(stream=S) is Python code that wraps S in
// an ExternalStream and records and waits on an event to order S after torch's current stream, on
// every call; when tessel queues on torch's current stream itself (stream=None), that handshake
// orders nothing, and reading the attributes is all the import needs.
#pragma once

#include <optional>

#include "dlpack.hpp"

namespace tessel::python {

// Whether torch is imported (tessel never imports it).
bool torch_loaded();

// `obj` as a CUDA strided torch.Tensor of an element type tessel takes; nullopt for anything else
// (a CPU tensor, a sparse one, another dtype, not a tensor), which then goes through DLPack and its
// errors.
std::optional<Imported> import_torch_cuda(py::handle obj);

// torch's current CUstream on torch's current device (torch._C._cuda_getCurrentRawStream where
// torch has it, else torch.cuda.current_stream()); nullopt where torch is not loaded or has no CUDA.
std::optional<uint64_t> torch_current_stream();

}  // namespace tessel::python
