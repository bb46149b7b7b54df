// operations.cpp: tessel.gemm and tessel.elementwise over DLPack tensors, on the GPU (on tessel's
// stream, the DLPack stream protocol honoured) or on the CPU emulator (emulate=True), through the
// catalog; and tessel.tensor_view, what tessel reads from a DLPack tensor.
#include "operations.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <sstream>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "emulate.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/launch.hpp"
#include "torch_tensor.hpp"

namespace tessel::python {

namespace {

using codegen::Type;
using kernels::TensorView;

bool is_torch_tensor(py::handle h) {
  return torch_loaded() && py::isinstance(h, py::module_::import("torch").attr("Tensor"));
}

// The CUstream a GPU call queues on, and whether it is torch's current one.
std::pair<uint64_t, bool> resolve_stream(py::handle stream) {
  if (stream.is_none()) {
    // PyTorch's current stream, so that tessel orders with the work torch queued (only when torch
    // is already imported: tessel never imports it).
    if (const std::optional<uint64_t> s = torch_current_stream()) return {*s, true};
    return {0, false};
  }
  if (py::isinstance<py::int_>(stream)) return {stream.cast<uint64_t>(), false};
  if (py::hasattr(stream, "cuda_stream")) return {stream.attr("cuda_stream").cast<uint64_t>(), false};
  if (py::hasattr(stream, "__cuda_stream__")) return {py::tuple(stream.attr("__cuda_stream__")())[1].cast<uint64_t>(), false};
  throw py::type_error("stream: expected None, an int (a CUstream) or a stream object with cuda_stream "
                       "(torch.cuda.Stream) or __cuda_stream__, got " +
                       std::string(py::str(py::type::of(stream).attr("__name__"))));
}

// One operand, checked against where the call runs.
Imported import_operand(py::handle obj, const std::string& what, const Call& call) {
  // A torch tensor on torch's current stream: its attributes, without DLPack's stream handshake.
  std::optional<Imported> fast;
  if (!call.emulate && call.torch_stream) fast = import_torch_cuda(obj);
  const TensorDevice d = fast ? fast->device : dlpack_device(obj, what);
  if (call.emulate) {
    if (!d.cpu())
      fail(what + " is on " + device_name(d) +
           ": emulate=True runs the kernel on the CPU emulator, which takes CPU arrays (numpy, torch CPU tensors)");
    return import_dlpack(obj, what);
  }
  if (d.cpu())
    fail(what + " is a CPU array: tessel runs on the GPU and takes CUDA tensors; pass emulate=True to run the "
         "kernel on the CPU emulator instead");
  if (!d.cuda()) fail(what + " is on " + device_name(d) + ": tessel takes CUDA tensors (or CPU ones with emulate=True)");
  const int in_use = kernels::device_in_use().ordinal;
  if (d.id != in_use)
    fail(what + " is on cuda:" + std::to_string(d.id) + ", but tessel runs on the GPU in use, cuda:" +
         std::to_string(in_use) + " (make it current first, e.g. torch.cuda.set_device(" + std::to_string(d.id) + "))");
  return fast ? std::move(*fast) : import_dlpack(obj, what, call.stream);
}

const char* numpy_dtype(Type t) {
  switch (t) {
    case Type::F16: return "float16";
    case Type::F32: return "float32";
    case Type::F64: return "float64";
    case Type::S8: return "int8";
    case Type::S32: return "int32";
    default: return nullptr;
  }
}

// A fresh output of `shape` like `like`: torch.empty for a torch tensor (same dtype and device),
// numpy.empty for another CPU array; refused otherwise.
py::object allocate_like(const Imported& like, const std::vector<int64_t>& shape, const std::string& what) {
  py::tuple s = py::cast(shape);
  if (is_torch_tensor(like.object)) {
    return py::module_::import("torch").attr("empty")(s, py::arg("dtype") = like.object.attr("dtype"),
                                                      py::arg("device") = like.object.attr("device"));
  }
  if (like.device.cpu()) {
    const char* dt = numpy_dtype(like.view.dtype);
    if (!dt)
      fail(what + "=None: numpy has no " + std::string(codegen::ptx_name(like.view.dtype)) + " to allocate; pass " + what +
           "=");
    return py::module_::import("numpy").attr("empty")(s, py::arg("dtype") = dt);
  }
  fail(what + "=None: tessel allocates outputs for torch tensors and CPU arrays only; pass " + what + "= for a " +
       std::string(py::str(py::type::of(like.object).attr("__name__"))) + " on " + device_name(like.device));
}

Call start(bool emulate, py::handle stream) {
  Call call;
  call.tensors.reserve(4);  // references to the elements are held while more are added
  call.emulate = emulate;
  if (!emulate) std::tie(call.stream, call.torch_stream) = resolve_stream(stream);
  else if (!stream.is_none()) fail("stream: emulate=True runs on the CPU emulator, which has no streams");
  return call;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

std::optional<int> call_cc(const Call& call) { return call.emulate ? std::optional<int>(kEmulatorCc) : std::nullopt; }

Call prepare_gemm(py::handle a, py::handle b, py::handle out, py::handle c, double alpha, double beta, bool emulate,
                  py::handle stream) {
  Call call = start(emulate, stream);
  const Imported& A = call.tensors.emplace_back(import_operand(a, "a", call));
  const Imported& B = call.tensors.emplace_back(import_operand(b, "b", call));
  const auto& as = A.view.shape;
  const auto& bs = B.view.shape;
  if (as.size() != bs.size() || as.size() < 2 || as.size() > 3)
    fail("gemm: a is " + shape_text(as) + " and b is " + shape_text(bs) +
         ": tessel multiplies (M,K) by (K,N), or a batch (L,M,K) by (L,K,N)");
  std::vector<int64_t> out_shape(as.begin(), as.end() - 1);
  out_shape.push_back(bs.back());
  if (out.is_none()) {
    if (beta != 0 && c.is_none())
      fail("gemm: beta=" + std::to_string(beta) + " reads out (out = alpha * a @ b + beta * out), but out is None");
    call.out = allocate_like(A, out_shape, "out");
  } else {
    call.out = py::reinterpret_borrow<py::object>(out);
  }
  const Imported& O = call.tensors.emplace_back(import_operand(call.out, "out", call));
  kernels::GemmArguments g = kernels::make_gemm_arguments(A.view, B.view, O.view, alpha, beta);
  if (!c.is_none()) g.C = call.tensors.emplace_back(import_operand(c, "c", call)).view;
  call.args = g;
  return call;
}

Call prepare_elementwise(const std::string& op_name, py::handle a, py::handle b, py::handle out, double alpha,
                         double beta, bool emulate, py::handle stream) {
  Call call = start(emulate, stream);
  kernels::ElementwiseArguments e;
  e.op = kernels::parse_elementwise_op(op_name);
  e.alpha = alpha;
  e.beta = beta;
  const Imported& A = call.tensors.emplace_back(import_operand(a, "a", call));
  e.A = A.view;
  if (kernels::is_unary(e.op)) {
    if (!b.is_none()) fail(std::string("elementwise: ") + op_name + " is unary (C = " + op_name + "(A)): b must be None");
    e.B = A.view;  // not read
  } else {
    if (b.is_none()) fail(std::string("elementwise: ") + op_name + " is binary (C = " + op_name + "(A, B)): b is needed");
    e.B = call.tensors.emplace_back(import_operand(b, "b", call)).view;
  }
  call.out = out.is_none() ? allocate_like(A, A.view.shape, "out") : py::reinterpret_borrow<py::object>(out);
  e.C = call.tensors.emplace_back(import_operand(call.out, "out", call)).view;
  call.args = e;
  return call;
}

namespace {

// A key under which calls choose the same kernel: everything supports() reads, with the addresses
// reduced to their alignment (mod 256) and, for views whose spans overlap (in place, aliasing), to
// their difference; disjoint views are only marked so, whatever their distance.
std::string selection_key(const kernels::Arguments& args, std::optional<int> cc) {
  std::ostringstream k;
  k << (cc ? *cc : 0) << '|';
  std::vector<const TensorView*> views;
  if (const auto* g = std::get_if<kernels::GemmArguments>(&args)) {
    k << "gemm" << int(g->accumulator_type) << ',' << g->alpha << ',' << g->beta << ';';
    views = {&g->A, &g->B, &g->out};
  } else {
    const auto& e = std::get<kernels::ElementwiseArguments>(args);
    k << "ew" << int(e.op) << ',' << e.alpha << ',' << e.beta << ';';
    views = {&e.A, &e.B, &e.C};
  }
  for (size_t i = 0; i < views.size(); ++i) {
    const TensorView& v = *views[i];
    k << int(v.dtype) << shape_text(v.shape) << shape_text(v.stride) << '@' << (v.data % 256);
    for (size_t j = 0; j < i; ++j) {
      const TensorView& w = *views[j];
      const int64_t d = static_cast<int64_t>(v.data - w.data);
      const bool overlap = v.data < w.data + static_cast<uint64_t>(w.span_bytes()) + static_cast<uint64_t>(v.span_bytes()) &&
                           w.data < v.data + static_cast<uint64_t>(v.span_bytes()) + static_cast<uint64_t>(w.span_bytes());
      if (overlap) k << '~' << j << '+' << d;
    }
    k << ';';
  }
  return k.str();
}

std::string describe(const kernels::Arguments& args) {
  if (const auto* g = std::get_if<kernels::GemmArguments>(&args))
    return "a " + g->A.to_string() + ", b " + g->B.to_string() + ", out " + g->out.to_string();
  const auto& e = std::get<kernels::ElementwiseArguments>(args);
  return std::string(kernels::op_name(e.op)) + " of a " + e.A.to_string() + ", b " + e.B.to_string() + ", out " +
         e.C.to_string();
}

}  // namespace

// The one place a call's kernel is chosen: the named kernel (resolve_kernel: a catalog name, or a
// class with options), else the first of get_kernels(args) in catalog order. The catalog's one-call
// API (its heuristic) replaces the second branch. Choices are remembered per selection_key, and the
// chosen kernel object is kept, so that its compiled artifact serves every later call.
kernels::KernelPtr select_kernel(const kernels::Arguments& args, std::optional<int> cc, const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, kernels::KernelPtr> chosen;
  const std::string key = name.empty() ? selection_key(args, cc) : "name|" + name;
  kernels::KernelPtr k;
  {
    std::lock_guard lock(mutex);
    if (auto it = chosen.find(key); it != chosen.end()) k = it->second;
  }
  if (!k && !name.empty()) k = kernels::resolve_kernel(name);
  if (k) {
    if (const kernels::Status s = k->supports(args); !s) fail(k->name() + " cannot run " + describe(args) + ": " + s.reason);
  } else {
    std::vector<kernels::KernelPtr> found = kernels::get_kernels(args, {}, cc);
    if (found.empty()) {
      // Say why, with the reasons of a few kernels of the operation, those of the first operand's
      // type (and elementwise op) first: a kernel of another type or op only says so.
      const kernels::Operation op = kernels::operation_of(args);
      const Type t = std::holds_alternative<kernels::GemmArguments>(args)
                         ? std::get<kernels::GemmArguments>(args).A.dtype
                         : std::get<kernels::ElementwiseArguments>(args).C.dtype;
      std::vector<kernels::KernelPtr> near =
          kernels::list_kernels([&](const kernels::KernelMetadata& md) { return md.operation == op; }, cc);
      const auto* e = std::get_if<kernels::ElementwiseArguments>(&args);
      std::stable_partition(near.begin(), near.end(), [&](const kernels::KernelPtr& other) {
        const kernels::KernelMetadata& md = other->metadata();
        const auto op_option = md.options.find("op");
        return !md.operands.empty() && md.operands.front().dtype == t &&
               (!e || op_option == md.options.end() || op_option->second == kernels::op_name(e->op));
      });
      std::string why;
      int n = 0;
      for (const kernels::KernelPtr& other : near) {
        const kernels::Status s = other->supports(args);
        if (!s && why.find(s.reason) == std::string::npos && n < 3) {
          why += "\n  " + other->name() + ": " + s.reason;
          ++n;
        }
      }
      fail(std::string("no kernel of the catalog runs ") + describe(args) +
           (cc ? " on sm_" + std::to_string(*cc) : std::string()) + (why.empty() ? "" : "; for example:" + why));
    }
    k = found.front();
  }
  std::lock_guard lock(mutex);
  chosen.emplace(key, k);
  return k;
}

namespace {

// Runs the prepared call on its kernel; returns out.
py::object execute(Call& call, const std::string& kernel) {
  // A GEMM on the GPU without a kernel named: the one-call API (kernels/gemm.hpp) chooses, copying
  // operands the tensor cores cannot take as they lie through its workspace.
  if (const auto* g = std::get_if<kernels::GemmArguments>(&call.args); g && kernel.empty() && !call.emulate) {
    kernels::gemm(*g, rt::StreamRef::from_native(reinterpret_cast<void*>(call.stream)));
    return call.out;
  }
  const TensorView* out = std::holds_alternative<kernels::GemmArguments>(call.args)
                              ? &std::get<kernels::GemmArguments>(call.args).out
                              : &std::get<kernels::ElementwiseArguments>(call.args).C;
  // Emulated, a GEMM without a kernel named makes the choice the one-call API makes on an H100
  // (sm_90, 132 SMs), copies included, so that a script takes the same path with and without a GPU.
  if (const auto* g = std::get_if<kernels::GemmArguments>(&call.args); g && kernel.empty() && call.emulate) {
    kernels::GemmRanking r = kernels::rank_gemm(*g, kernels::GemmDevice{kEmulatorCc, 132});
    if (!r.ranked.empty()) {
      const kernels::GemmChoice choice = std::move(r.ranked.front());
      run_emulated(call.args, {out}, choice.workspace_bytes, [&](const kernels::Arguments& a, uint64_t workspace) {
        std::vector<std::pair<kernels::KernelPtr, kernels::Arguments>> launches;
        for (kernels::GemmStep& s : kernels::gemm_steps(choice, std::get<kernels::GemmArguments>(a), workspace))
          launches.emplace_back(std::move(s.kernel), std::move(s.args));
        return launches;
      });
      return call.out;
    }  // else select_kernel says why nothing runs them
  }
  const kernels::KernelPtr k = select_kernel(call.args, call_cc(call), kernel);
  if (call.emulate) {
    run_emulated(k, call.args, {out});
  } else {
    if (const size_t w = k->workspace_size(call.args); w > 0)
      fail(k->name() + " needs " + std::to_string(w) + " bytes of workspace, which the Python API does not provide yet");
    k->run(call.args, rt::StreamRef::from_native(reinterpret_cast<void*>(call.stream)));
  }
  return call.out;
}

py::dict view_dict(const Imported& t) {
  py::dict d;
  d["dtype"] = codegen::ptx_name(t.view.dtype);
  d["shape"] = py::tuple(py::cast(t.view.shape));
  d["stride"] = py::tuple(py::cast(t.view.stride));
  d["data"] = t.view.data;
  d["device"] = device_name(t.device);
  d["text"] = t.view.to_string();
  return d;
}

}  // namespace

void bind_operations(py::module_& m) {
  m.def("gemm",
        [](py::object a, py::object b, py::object out, py::object c, double alpha, double beta, bool emulate,
           std::string kernel, py::object stream) {
          Call call = prepare_gemm(a, b, out, c, alpha, beta, emulate, stream);
          return execute(call, kernel);
        },
        py::arg("a"), py::arg("b"), py::arg("out") = py::none(), py::kw_only(), py::arg("c") = py::none(),
        py::arg("alpha") = 1.0, py::arg("beta") = 0.0, py::arg("emulate") = false, py::arg("kernel") = "",
        py::arg("stream") = py::none(),
        "out = alpha * a @ b + beta * out (or + beta * c) through the catalog; returns out (allocated when None).");
  m.def("elementwise",
        [](const std::string& op, py::object a, py::object b, py::object out, double alpha, double beta, bool emulate,
           std::string kernel, py::object stream) {
          Call call = prepare_elementwise(op, a, b, out, alpha, beta, emulate, stream);
          return execute(call, kernel);
        },
        py::arg("op"), py::arg("a"), py::arg("b") = py::none(), py::arg("out") = py::none(), py::kw_only(),
        py::arg("alpha") = 1.0, py::arg("beta") = 1.0, py::arg("emulate") = false, py::arg("kernel") = "",
        py::arg("stream") = py::none(),
        "out = op(a, b) (add, sub, mul, div, min, max, axpby: alpha*a + beta*b; unary: copy, neg, abs, relu).");
  m.def("tensor_view",
        [](py::object t) {
          const TensorDevice d = dlpack_device(t, "tensor");
          std::optional<uint64_t> stream;
          if (d.cuda()) stream = resolve_stream(py::none()).first;
          return view_dict(import_dlpack(t, "tensor", stream));
        },
        py::arg("tensor"),
        "What tessel reads from a DLPack tensor: dtype, shape, stride (elements), data (address of element 0), "
        "device.");
  m.attr("dlpack_version") = dlpack_version();
  m.attr("dlpack_has_fp8") = dlpack_has_fp8();
}

}  // namespace tessel::python
