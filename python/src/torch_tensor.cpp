// torch_tensor.cpp: see torch_tensor.hpp.
#include "torch_tensor.hpp"

#include <utility>
#include <vector>

#include "tessel/codegen/types.hpp"

namespace tessel::python {

namespace {

using codegen::Type;

// The torch objects the fast road compares with, looked up once torch is loaded. Never destroyed:
// they would otherwise be released after the interpreter has finalized.
struct Torch {
  py::object tensor_type, strided;
  py::object raw_stream, current_device;  // torch._C's, None where torch has none (no CUDA)
  py::object cuda;                        // torch.cuda
  bool cuda_available = false;
  std::vector<std::pair<py::object, Type>> dtypes;
};

const Torch* torch_objects() {
  static const Torch* t = nullptr;
  if (t || !torch_loaded()) return t;
  py::module_ torch = py::module_::import("torch");
  auto* made = new Torch;
  made->tensor_type = torch.attr("Tensor");
  made->strided = torch.attr("strided");
  py::object c = torch.attr("_C");
  const bool raw = py::hasattr(c, "_cuda_getCurrentRawStream") && py::hasattr(c, "_cuda_getDevice");
  // (py::object on both sides: `cond ? accessor : py::none()` would cast the function to None.)
  made->raw_stream = raw ? py::object(c.attr("_cuda_getCurrentRawStream")) : py::object(py::none());
  made->current_device = raw ? py::object(c.attr("_cuda_getDevice")) : py::object(py::none());
  made->cuda = torch.attr("cuda");
  made->cuda_available = made->cuda.attr("is_available")().cast<bool>();
  const std::pair<const char*, Type> names[] = {{"float16", Type::F16},  {"bfloat16", Type::BF16},
                                                {"float32", Type::F32},  {"float64", Type::F64},
                                                {"int8", Type::S8},      {"int32", Type::S32},
                                                {"float8_e4m3fn", Type::E4M3}, {"float8_e5m2", Type::E5M2}};
  for (const auto& [name, type] : names)
    if (py::hasattr(torch, name)) made->dtypes.emplace_back(torch.attr(name), type);
  t = made;
  return t;
}

}  // namespace

bool torch_loaded() {
  static PyObject* modules = PySys_GetObject("modules");  // borrowed; sys.modules lives as long as the interpreter
  return PyDict_GetItemString(modules, "torch") != nullptr;
}

std::optional<Imported> import_torch_cuda(py::handle obj) {
  const Torch* torch = torch_objects();
  if (!torch || !py::isinstance(obj, torch->tensor_type)) return std::nullopt;
  if (!obj.attr("is_cuda").cast<bool>() || !py::object(obj.attr("layout")).is(torch->strided)) return std::nullopt;
  const py::object dtype = obj.attr("dtype");
  const Type* type = nullptr;
  for (const auto& [d, t] : torch->dtypes)
    if (dtype.is(d)) type = &t;
  if (!type) return std::nullopt;
  Imported r;
  r.object = py::reinterpret_borrow<py::object>(obj);  // holds the storage for the call
  r.device = TensorDevice{2, obj.attr("get_device")().cast<int>()};
  r.view.dtype = *type;
  r.view.data = obj.attr("data_ptr")().cast<uint64_t>();  // storage offset included
  // Element by element: pybind11 3 does not cast a torch.Size to a std::vector as a whole.
  for (py::handle e : obj.attr("shape")) r.view.shape.push_back(e.cast<int64_t>());
  for (py::handle e : obj.attr("stride")()) r.view.stride.push_back(e.cast<int64_t>());
  return r;
}

std::optional<uint64_t> torch_current_stream() {
  const Torch* torch = torch_objects();
  if (!torch || !torch->cuda_available) return std::nullopt;
  if (!torch->raw_stream.is_none()) return torch->raw_stream(torch->current_device()).cast<uint64_t>();
  return torch->cuda.attr("current_stream")().attr("cuda_stream").cast<uint64_t>();
}

}  // namespace tessel::python
