// bindings.hpp: the parts of the `tessel` Python module (module.cpp joins them), one per file:
// the algebra, the catalog, the operations (gemm, elementwise) over DLPack tensors.
#pragma once

#include <pybind11/pybind11.h>

namespace tessel::python {

namespace py = pybind11;

void bind_algebra(py::module_& m);     // algebra.cpp: Layout, TVLayout and CuTe's operations
void bind_catalog(py::module_& m);     // catalog.cpp: kernels(), dump()
void bind_operations(py::module_& m);  // operations.cpp: gemm(), elementwise(), from_dlpack()

}  // namespace tessel::python
