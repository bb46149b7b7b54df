// module.cpp: the `tessel._tessel` extension module: tessel::Error becomes tessel.Error, then each
// part binds itself (bindings.hpp).
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "tessel/algebra/error.hpp"

PYBIND11_MODULE(_tessel, m) {
  namespace py = pybind11;
  m.doc() = "tessel: the CuTe layout algebra, a PTX code generator and its kernels, from Python";
  // RuntimeError, as tessel::Error is a std::runtime_error: it covers misuse (a shape a kernel
  // refuses) and the environment (no CUDA driver) alike. The message is tessel's own.
  py::register_exception<tessel::Error>(m, "Error", PyExc_RuntimeError);
  tessel::python::bind_algebra(m);
  tessel::python::bind_catalog(m);
  tessel::python::bind_operations(m);
}
