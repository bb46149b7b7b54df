// gemm/bound.cpp: see bound.hpp.
#include "gemm/bound.hpp"

#include <cstring>
#include <optional>

#include "common/gemm_c.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/tma.hpp"

namespace tessel::kernels {

std::array<uint64_t, kRoles> gemm_role_addresses(const GemmArguments& g, uint64_t workspace) {
  return {g.A.data, g.B.data, g.distinct_c() ? g.C->data : 0, g.out.data, workspace};
}

namespace {

// A Bound for these arguments, without its launches.
std::shared_ptr<Bound> bound_for(const GemmArguments& args, uint64_t workspace) {
  auto b = std::make_shared<Bound>();
  b->addresses = gemm_role_addresses(args, workspace);
  b->alpha = args.alpha;
  b->beta = args.beta;
  return b;
}

// The steps' launches; with `rel`, also where their addresses come from (rel->moves empty and the
// function's result false where one cannot be placed in a single role's bytes).
bool make_launches(const GemmChoice& choice, const GemmArguments& args, uint64_t workspace,
                   std::vector<ReadyLaunch>& launches, Relocations* rel) {
  std::array<std::pair<uint64_t, uint64_t>, kRoles> range{};  // each role's bytes, from its granule
  if (rel) {
    rel->base = gemm_role_addresses(args, workspace);
    const TensorView* views[] = {&args.A, &args.B, args.distinct_c() ? &*args.C : nullptr, &args.out};
    for (int r = 0; r < kRoleWorkspace; ++r)
      if (views[r] && views[r]->size() > 0) range[static_cast<size_t>(r)] = views[r]->byte_range();
    if (choice.workspace_bytes > 0) range[kRoleWorkspace] = {workspace, workspace + choice.workspace_bytes};
  }
  bool placed = rel != nullptr;
  for (const GemmStep& s : gemm_steps(choice, args, workspace)) {
    const Kernel& k = *s.kernel;
    if (const Status st = k.supports(s.args); !st) fail(k.name() + " cannot run these arguments: " + st.reason);
    const Artifact& artifact = k.artifact_for(s.args);
    // With `rel`, the descriptors this step encodes, and at which addresses.
    std::vector<rt::TensorMap> maps;
    std::vector<uint64_t> at;
    const size_t first_spec = rel ? rel->specs.size() : 0;
    LaunchTarget target;
    if (rel)
      target.encode = [&](const rt::TensorMapSpec& spec, uint64_t address) {
        const rt::TensorMap m = encode_tensor_map_cached(spec, address);
        rel->specs.push_back(spec);
        maps.push_back(m);
        at.push_back(address);
        return m;
      };
    const codegen::LaunchPlan plan = k.plan_for_launch(s.args, artifact, target);
    const codegen::Kernel* entry = nullptr;
    for (const codegen::Kernel& e : artifact.module.kernels)
      if (e.name == artifact.kernel) entry = &e;
    if (!entry) fail(k.name() + ": the artifact's module has no kernel " + artifact.kernel);
    for (size_t j = 0; placed && j < entry->params.size() && j < plan.params.size(); ++j) {
      const codegen::Param::Kind kind = entry->params[j].kind;
      const std::vector<std::byte>& bytes = plan.params[j];
      Relocation m;
      m.launch = static_cast<uint32_t>(launches.size());
      m.param = static_cast<uint32_t>(j);
      if (kind == codegen::Param::Kind::Pointer && bytes.size() == sizeof(uint64_t)) {
        std::memcpy(&m.address, bytes.data(), sizeof m.address);
        if (m.address == 0) continue;  // no tensor (an unused workspace)
      } else if (kind == codegen::Param::Kind::TensorMap) {
        for (size_t i = 0; i < maps.size() && m.spec < 0; ++i)
          if (bytes.size() == sizeof(rt::TensorMap) && std::memcmp(&maps[i], bytes.data(), bytes.size()) == 0) {
            m.spec = static_cast<int>(first_spec + i);
            m.address = at[i];
          }
        if (m.spec < 0) placed = false;  // a descriptor made elsewhere
      } else {
        continue;
      }
      for (size_t r = 0; r < kRoles; ++r)
        if (m.address >= (range[r].first & ~uint64_t{15}) && m.address < range[r].second) m.roles |= 1u << r;
      placed = placed && m.roles != 0;
      rel->moves.push_back(m);
    }
    launches.push_back(ready_launch(artifact.function(), *entry, plan));
  }
  if (rel && !placed) rel->moves.clear();
  return placed;
}

}  // namespace

std::shared_ptr<const Bound> bind_gemm(const GemmChoice& choice, const GemmArguments& args, uint64_t workspace) {
  std::shared_ptr<Bound> b = bound_for(args, workspace);
  auto rel = std::make_shared<Relocations>();
  if (make_launches(choice, args, workspace, b->launches, rel.get())) b->relocations = std::move(rel);
  return b;
}

std::shared_ptr<const Bound> move_gemm(const Bound& last, const GemmArguments& args, uint64_t workspace) {
  if (!last.relocations || last.alpha != args.alpha || last.beta != args.beta) return nullptr;
  if (args.distinct_c() && !check_gemm_c(args, "tessel::gemm")) return nullptr;  // bind_gemm says why, or copies C
  const Relocations& r = *last.relocations;
  std::shared_ptr<Bound> b = bound_for(args, workspace);
  const std::array<uint64_t, kRoles>& now = b->addresses;
  b->launches = last.launches;
  b->relocations = last.relocations;
  for (const Relocation& m : r.moves) {
    std::optional<uint64_t> shift;
    for (size_t role = 0; role < kRoles; ++role) {
      if (!(m.roles & (1u << role))) continue;
      const uint64_t d = now[role] - r.base[role];
      if (shift && *shift != d) return nullptr;  // one address, two tensors moved apart
      shift = d;
    }
    const uint64_t address = m.address + *shift;
    ReadyLaunch& l = b->launches[m.launch];
    if (m.spec < 0) {
      l.args.replace_bytes(m.param, &address, sizeof address);
    } else {
      const rt::TensorMap map = encode_tensor_map_cached(r.specs[static_cast<size_t>(m.spec)], address);
      l.args.replace_bytes(m.param, &map, sizeof map);
    }
  }
  return b;
}

std::vector<ReadyLaunch> ready_gemm_launches(const GemmChoice& choice, const GemmArguments& args, uint64_t workspace) {
  std::vector<ReadyLaunch> launches;
  make_launches(choice, args, workspace, launches, nullptr);
  return launches;
}

}  // namespace tessel::kernels
