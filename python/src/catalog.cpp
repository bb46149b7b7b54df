// catalog.cpp: the catalog from Python: tessel.kernels (every kernel's metadata as a dict, filtered
// as `tessel list --filter` does, and given tensors, whether each supports them and why not) and
// tessel.dump (a kernel's PTX, named as every command names it: docs/dump.md).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "operations.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/catalog.hpp"

namespace tessel::python {

namespace {

// Python keyword spellings (tile_m) as tessel's option and filter names (tile-m).
std::string dashed(std::string s) {
  for (char& c : s)
    if (c == '_') c = '-';
  return s;
}

std::string option_value(py::handle v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "on" : "off";
  return py::str(v);
}

py::dict metadata_dict(const kernels::KernelMetadata& md) {
  py::dict d;
  d["name"] = md.name;
  d["class"] = md.kernel_class;
  d["operation"] = kernels::operation_name(md.operation);
  py::list operands;
  for (const kernels::OperandAttributes& o : md.operands) {
    py::dict od;
    od["name"] = o.name;
    od["dtype"] = codegen::ptx_name(o.dtype);
    od["major"] = kernels::major_name(o.major);
    od["alignment"] = o.alignment;
    operands.append(od);
  }
  d["operands"] = operands;
  d["accumulator"] = codegen::ptx_name(md.accumulator);
  d["tile"] = py::tuple(py::cast(md.design.tile));
  d["cluster"] = py::tuple(py::cast(md.design.cluster));
  d["stages"] = md.design.stages;
  d["threads"] = md.design.threads;
  d["min_cc"] = md.min_cc;
  d["epilogue"] = kernels::epilogue_name(md.epilogue);
  d["options"] = md.options;
  return d;
}

}  // namespace

void bind_catalog(py::module_& m) {
  m.def(
      "kernels",
      [](py::object operation, py::object cc, py::object a, py::object b, py::object out, std::string op,
         py::kwargs filters) {
        std::vector<kernels::MetadataFilter> fs;
        if (!operation.is_none()) fs.push_back(kernels::metadata_filter("operation", py::str(operation)));
        for (const auto& [key, value] : filters)
          fs.push_back(kernels::metadata_filter(dashed(py::str(key)), option_value(value)));
        std::optional<int> at_cc;
        if (!cc.is_none()) at_cc = cc.cast<int>();
        // Given tensors, the arguments a call would pass (CPU tensors as for emulate=True).
        std::optional<Call> call;
        if (!a.is_none()) {
          const bool cpu = dlpack_device(a, "a").cpu();
          call = op.empty() ? prepare_gemm(a, b, out, py::none(), 1.0, 0.0, cpu, py::none())
                            : prepare_elementwise(op, a, b, out, 1.0, 1.0, cpu, py::none());
        }
        py::list result;
        for (const kernels::KernelPtr& k : kernels::list_kernels(kernels::all_of(fs), at_cc)) {
          py::dict d = metadata_dict(k->metadata());
          if (call) {
            const kernels::Status s = k->supports(call->args);
            d["supports"] = s.ok;
            d["reason"] = s.reason;
          }
          result.append(d);
        }
        return result;
      },
      py::arg("operation") = py::none(), py::kw_only(), py::arg("cc") = py::none(), py::arg("a") = py::none(),
      py::arg("b") = py::none(), py::arg("out") = py::none(), py::arg("op") = "",
      "The catalog's kernels as metadata dicts. Filters as `tessel list --filter`: class=, dtype=, name=, major=, "
      "tile_m=, min_cc=...; cc= keeps the kernels that run on it. Given tensors (a, b[, out]; op= for an "
      "elementwise operation), each dict also says whether the kernel supports them and, if not, why.");
  m.def(
      "dump",
      [](const std::string& name, bool comments, py::kwargs options) {
        kernels::Options given;
        for (const auto& [key, value] : options) given[dashed(py::str(key))] = option_value(value);
        const kernels::KernelPtr k = kernels::resolve_kernel(name, given);
        codegen::PrintOptions po;
        po.comments = comments;
        po.generator = "tessel dump " + kernels::kernel_arguments(*k);
        return codegen::print_ptx(k->generate(), po);
      },
      py::arg("name"), py::kw_only(), py::arg("comments") = false,
      "The PTX of a kernel: a catalog name or a class, with options as keywords (tile_m=64 is --tile-m 64), "
      "as `tessel dump` takes them.");
}

}  // namespace tessel::python
