// run.cpp: run(plan, memory): checks the plan against its kernel, lays out the parameters, decodes
// the kernel once and runs the clusters in linear order (or reversed), the blocks of a cluster together.
#include "tessel/emulator/run.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "block.hpp"
#include "program.hpp"

namespace tessel::emu {

using namespace codegen;

namespace {

std::string dims(const std::array<unsigned, 3>& d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}

void check_shape(const LaunchPlan& plan, const Kernel& k) {
  const std::string who = "emulator: launch of " + k.name + ": ";
  const auto& b = plan.block;
  const auto& g = plan.grid;
  const auto& c = plan.cluster;
  for (int i = 0; i < 3; ++i) {
    if (b[i] == 0 || g[i] == 0 || c[i] == 0) {
      fail(who + "grid " + dims(g) + ", block " + dims(b) + " and cluster " + dims(c) + " need positive extents");
    }
    if (g[i] % c[i] != 0) fail(who + "grid " + dims(g) + " is not a multiple of the cluster " + dims(c));
  }
  const uint64_t threads = uint64_t{b[0]} * b[1] * b[2];
  if (threads > 1024) fail(who + "block " + dims(b) + " has " + std::to_string(threads) + " threads (at most 1024)");
  if (k.reqntid) {
    const auto& r = *k.reqntid;
    if (b[0] != unsigned(r[0]) || b[1] != unsigned(r[1]) || b[2] != unsigned(r[2])) {
      fail(who + "block " + dims(b) + " differs from the kernel's .reqntid " +
           dims({unsigned(r[0]), unsigned(r[1]), unsigned(r[2])}));
    }
  }
  if (k.maxntid) {
    const auto& m = *k.maxntid;
    if (threads > uint64_t(m[0]) * m[1] * m[2]) fail(who + "block " + dims(b) + " exceeds the kernel's .maxntid");
  }
  if (k.cluster_dims) {
    const auto& r = *k.cluster_dims;
    if (c[0] != unsigned(r[0]) || c[1] != unsigned(r[1]) || c[2] != unsigned(r[2])) {
      fail(who + "cluster " + dims(c) + " differs from the kernel's .reqnctapercluster " +
           dims({unsigned(r[0]), unsigned(r[1]), unsigned(r[2])}));
    }
  }
}

std::vector<std::byte> parameter_space(const LaunchPlan& plan, const detail::Program& p) {
  const Kernel& k = *p.kernel;
  if (plan.params.size() != p.params.size()) {
    fail("emulator: launch of " + k.name + ": the kernel has " + std::to_string(p.params.size()) +
         " parameters, the plan gives " + std::to_string(plan.params.size()));
  }
  std::vector<std::byte> space(p.param_bytes);
  for (size_t i = 0; i < p.params.size(); ++i) {
    const detail::ParamSlot& s = p.params[i];
    if (plan.params[i].size() != s.bytes) {
      fail("emulator: launch of " + k.name + ": parameter " + std::to_string(i) + " '" + s.name + "' has " +
           std::to_string(s.bytes) + " bytes, the plan gives " + std::to_string(plan.params[i].size()));
    }
    std::memcpy(space.data() + s.offset, plan.params[i].data(), s.bytes);
  }
  return space;
}

}  // namespace

RunStats run(const LaunchPlan& plan, Memory& mem, const RunOptions& options) {
  const Kernel& k = plan.entry();
  check_shape(plan, k);
  const detail::Program p = detail::decode(k, plan.dynamic_shared_bytes);
  // The shared memory an sm_90 block may have (227 KiB); the driver refuses a launch with more.
  const uint32_t shared_bytes = p.shared_end - detail::kSharedBase;
  if (shared_bytes > 227 * 1024) {
    fail("emulator: launch of " + k.name + ": " + std::to_string(shared_bytes) +
         " bytes of shared memory per block (at most 232448)");
  }
  // Release and acquire between blocks are checked where the kernel can hand data over at all.
  const bool atomics = std::any_of(p.code.begin(), p.code.end(), [](const detail::Decoded& d) {
    return (d.op == codegen::Op::Atom || d.op == codegen::Op::Red) && d.space != codegen::Space::Shared;
  });
  detail::Launch launch{p, plan, mem, options, parameter_space(plan, p), {}, options.max_steps,
                        detail::GlobalOrder(atomics)};
  // The clusters in linear order, the blocks of each run together: one pass over each block's
  // threads in turn (rank order), until all have exited; a round in which no thread of the
  // cluster ran is a deadlock.
  const auto& c = plan.cluster;
  const unsigned cs = c[0] * c[1] * c[2];
  std::vector<std::unique_ptr<detail::BlockRunner>> runners;
  detail::Cluster cluster;
  for (unsigned r = 0; r < cs; ++r) {
    runners.push_back(std::make_unique<detail::BlockRunner>(launch));
    cluster.ctas.push_back(runners.back().get());
  }
  std::vector<std::array<unsigned, 3>> origins;  // each cluster's first block
  for (unsigned z = 0; z < plan.grid[2]; z += c[2])
    for (unsigned y = 0; y < plan.grid[1]; y += c[1])
      for (unsigned x = 0; x < plan.grid[0]; x += c[0]) origins.push_back({x, y, z});
  if (options.reverse_order) std::reverse(origins.begin(), origins.end());
  for (const auto& [x, y, z] : origins) {
    cluster.arrived.clear();
    // Rank r = (x, y, z) within the cluster with x fastest, as %cluster_ctarank.
    for (unsigned r = 0; r < cs; ++r)
      runners[r]->start({x + r % c[0], y + r / c[0] % c[1], z + r / (c[0] * c[1])}, cluster, r);
    for (;;) {
      bool ran = false, live = false;
      for (auto& b : runners) live = b->pass(ran) || live;
      if (!live) break;
      if (!ran) {
        for (auto& b : runners) {
          if (b->waiting()) b->deadlock();  // the first block with a thread still waiting
        }
      }
    }
    launch.stats.blocks += cs;
    if (options.progress) options.progress(launch.stats.blocks, uint64_t{plan.grid[0]} * plan.grid[1] * plan.grid[2]);
  }
  launch.stats.steps = options.max_steps - launch.steps_left;
  return launch.stats;
}

}  // namespace tessel::emu
