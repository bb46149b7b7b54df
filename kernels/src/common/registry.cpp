// common/registry.cpp: lookup, option resolution and listing of the kernel families.
#include "tessel/kernels/registry.hpp"

#include "tessel/algebra/error.hpp"
#include "tessel/kernels/demos.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

namespace tessel::kernels {

const std::vector<KernelFamily>& kernel_families() {
  static const std::vector<KernelFamily> all = {vector_copy_family(), tma_tile_family(), wgmma_tile_family(),
                                                elementwise_family(), hopper_gemm_family()};
  return all;
}

const KernelFamily& find_family(const std::string& name) {
  std::string valid;
  for (const KernelFamily& f : kernel_families()) {
    if (f.name == name) return f;
    valid += (valid.empty() ? "" : ", ") + f.name;
  }
  fail("unknown kernel '" + name + "' (valid: " + valid + ")");
}

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

Options resolve_options(const KernelFamily& f, const Options& given) {
  Options out;
  for (const auto& [name, value] : given) {
    const OptionSpec* spec = nullptr;
    std::vector<std::string> names;
    for (const OptionSpec& s : f.options) {
      names.push_back("--" + s.name);
      if (s.name == name) spec = &s;
    }
    if (!spec) {
      fail("unknown option --" + name + " for " + f.name + " (valid: " + (names.empty() ? "none" : join(names)) + ")");
    }
    bool ok = false;
    for (const std::string& v : spec->values) ok = ok || v == value;
    if (!ok)
      fail("invalid value '" + value + "' for " + f.name + " --" + name + " (valid: " + join(spec->values) + ")");
    out[name] = value;
  }
  for (const OptionSpec& s : f.options) {
    if (!out.count(s.name)) out[s.name] = s.values.at(0);
  }
  return out;
}

std::vector<Options> listed_configurations(const KernelFamily& f) {
  if (!f.listed.empty()) {
    std::vector<Options> out;
    for (const Options& o : f.listed) out.push_back(resolve_options(f, o));
    return out;
  }
  std::vector<Options> out = {Options{}};
  for (const OptionSpec& s : f.options) {
    std::vector<Options> next;
    for (const Options& o : out) {
      for (const std::string& v : s.values) {
        Options p = o;
        p[s.name] = v;
        next.push_back(std::move(p));
      }
    }
    out = std::move(next);
  }
  return out;
}

std::string dump_arguments(const KernelFamily& f, const Options& o) {
  std::string s = f.name;
  for (const OptionSpec& spec : f.options) {  // in the family's option order
    auto it = o.find(spec.name);
    if (it != o.end()) s += " --" + spec.name + " " + it->second;
  }
  return s;
}

}  // namespace tessel::kernels
