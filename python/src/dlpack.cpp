// dlpack.cpp: see dlpack.hpp. The DLPack structs come from the header CMake found
// (TESSEL_DLPACK_HEADER: Debian's libdlpack-dev, or PyTorch's copy).
#include "dlpack.hpp"

#include TESSEL_DLPACK_HEADER

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/types.hpp"

namespace tessel::python {

namespace {

using codegen::Type;

// The fp8 codes arrived in DLPack 1.1; older headers (Debian 12's 0.6) lack them.
#if defined(DLPACK_MAJOR_VERSION) && (DLPACK_MAJOR_VERSION > 1 || (DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION >= 1))
constexpr bool kHasFp8 = true;
#else
constexpr bool kHasFp8 = false;
#endif

std::string type_name(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

std::string dtype_text(const DLDataType& t) {
  static const char* const codes[] = {"int", "uint", "float", "opaque", "bfloat", "complex", "bool"};
  std::string s = t.code < std::size(codes) ? codes[t.code] : "code " + std::to_string(t.code);
  s += std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

Type element_type(const DLDataType& t, const std::string& what) {
  if (t.lanes == 1) {
    switch (t.code) {
      case kDLFloat:
        if (t.bits == 16) return Type::F16;
        if (t.bits == 32) return Type::F32;
        if (t.bits == 64) return Type::F64;
        break;
      case kDLBfloat:
        if (t.bits == 16) return Type::BF16;
        break;
      case kDLInt:
        if (t.bits == 8) return Type::S8;
        if (t.bits == 32) return Type::S32;
        break;
#if defined(DLPACK_MAJOR_VERSION) && (DLPACK_MAJOR_VERSION > 1 || (DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION >= 1))
      case kDLFloat8_e4m3fn:
        if (t.bits == 8) return Type::E4M3;
        break;
      case kDLFloat8_e5m2:
        if (t.bits == 8) return Type::E5M2;
        break;
#endif
      default:
        break;
    }
  }
  fail(what + ": tessel does not take DLPack element type " + dtype_text(t) +
       " (it takes float16, bfloat16, float32, float64, int8, int32" +
       (kHasFp8 ? ", float8_e4m3fn, float8_e5m2" : "; fp8 needs a DLPack 1.1 header, this build has " + dlpack_version()) +
       ")");
}

}  // namespace

bool dlpack_has_fp8() { return kHasFp8; }

std::string dlpack_version() {
#if defined(DLPACK_MAJOR_VERSION)
  return std::to_string(DLPACK_MAJOR_VERSION) + "." + std::to_string(DLPACK_MINOR_VERSION);
#else
  return std::to_string(DLPACK_VERSION / 100) + "." + std::to_string(DLPACK_VERSION / 10 % 10);
#endif
}

std::string device_name(const TensorDevice& d) {
  if (d.cpu()) return "cpu";
  if (d.cuda()) return "cuda:" + std::to_string(d.id);
  const char* name = d.type == kDLCUDAHost      ? "kDLCUDAHost"
                     : d.type == kDLCUDAManaged ? "kDLCUDAManaged"
                     : d.type == kDLROCM        ? "kDLROCM"
                                                : "device type";
  return std::string(name) + "(" + std::to_string(d.type) + "):" + std::to_string(d.id);
}

TensorDevice dlpack_device(py::handle obj, const std::string& what) {
  if (!py::hasattr(obj, "__dlpack__") || !py::hasattr(obj, "__dlpack_device__"))
    throw py::type_error(what + " is a " + type_name(obj) +
                         ", not a DLPack tensor: tessel takes objects with __dlpack__ and __dlpack_device__ "
                         "(numpy >= 1.22 arrays, torch tensors, CuPy and JAX arrays)");
  const py::tuple d = obj.attr("__dlpack_device__")();
  return TensorDevice{d[0].cast<int>(), d[1].cast<int>()};
}

Imported import_dlpack(py::handle obj, const std::string& what, std::optional<uint64_t> cuda_stream) {
  Imported r;
  r.device = dlpack_device(obj, what);
  r.object = py::reinterpret_borrow<py::object>(obj);
  py::object capsule;
  if (r.device.cuda()) {
    // The protocol's stream argument: 1 is the legacy default stream (0 is not allowed).
    const uint64_t s = cuda_stream.value_or(0);
    capsule = obj.attr("__dlpack__")(py::arg("stream") = s == 0 ? uint64_t{1} : s);
  } else {
    capsule = obj.attr("__dlpack__")();
  }
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    fail(what + ": __dlpack__ did not return a \"dltensor\" capsule (already consumed, or a versioned one)");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  // Consumed: the capsule's destructor leaves it alone, and the deleter is ours to call.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  r.managed = std::shared_ptr<void>(managed, [](void* p) {
    auto* t = static_cast<DLManagedTensor*>(p);
    if (t->deleter) t->deleter(t);
  });
  const DLTensor& t = managed->dl_tensor;
  r.view.dtype = element_type(t.dtype, what);
  r.view.data = reinterpret_cast<uint64_t>(t.data) + t.byte_offset;
  r.view.shape.assign(t.shape, t.shape + t.ndim);
  r.view.stride.resize(t.ndim);
  if (t.strides) {
    r.view.stride.assign(t.strides, t.strides + t.ndim);
  } else {  // NULL strides: compact row-major
    int64_t s = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      r.view.stride[i] = s;
      s *= t.shape[i];
    }
  }
  return r;
}

}  // namespace tessel::python
