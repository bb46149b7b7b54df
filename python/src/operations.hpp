// operations.hpp: one call of tessel.gemm / tessel.elementwise, prepared: the DLPack operands
// imported (and held), the output allocated where none was given, the catalog's Arguments built.
// catalog.cpp reuses it for tessel.kernels(a=..., b=...) (supports reasons).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dlpack.hpp"
#include "tessel/kernels/catalog.hpp"

namespace tessel::python {

struct Call {
  kernels::Arguments args;
  std::vector<Imported> tensors;  // held until the call is done (a, b, out[, c])
  py::object out;                 // what the call returns
  bool emulate = false;
  uint64_t stream = 0;            // the CUstream of a GPU call (0: the legacy default stream)
  bool torch_stream = false;      // `stream` is torch's current stream (stream=None with torch loaded)
};

// gemm(a, b, out, c, alpha, beta): A (M,K) or (L,M,K), B (K,N) or (L,K,N), out (M,N) or (L,M,N),
// allocated like `a` when None. `stream`: None (torch's current stream when torch is loaded, else
// the default one), an int CUstream, or an object with `cuda_stream` (torch.cuda.Stream).
Call prepare_gemm(py::handle a, py::handle b, py::handle out, py::handle c, double alpha, double beta, bool emulate,
                  py::handle stream);
Call prepare_elementwise(const std::string& op, py::handle a, py::handle b, py::handle out, double alpha, double beta,
                         bool emulate, py::handle stream);

// Where the call's kernels must run: the emulator's cc, or the GPU's (nullopt: the device in use).
std::optional<int> call_cc(const Call& call);

}  // namespace tessel::python
