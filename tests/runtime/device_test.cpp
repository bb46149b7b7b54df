// device_test.cpp: device properties and primary contexts.
#include <doctest/doctest.h>

#include <string>

#include "gpu.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;

TEST_CASE("runtime: DeviceProperties names the architecture") {
  rt::DeviceProperties p;
  p.name = "NVIDIA H100 80GB HBM3";
  p.cc_major = 9;
  p.sm_count = 132;
  p.shared_memory_per_block_optin = 232448;
  p.l2_cache_bytes = 52428800;
  p.total_memory_bytes = 85028569088;
  CHECK(p.compute_capability() == 90);
  CHECK(p.arch() == "sm_90");
  CHECK(rt::to_string(p) ==
        "NVIDIA H100 80GB HBM3: sm_90, 132 SMs, 227 KiB shared memory per block (opt-in), 50 MiB L2, 79.2 GiB");
}

// --- GPU ------------------------------------------------------------------------------------

TEST_CASE("runtime: device 0 reports plausible properties") {
  TESSEL_REQUIRE_GPU(0);
  CHECK(rt::device_count() >= 1);
  rt::DeviceProperties p = rt::device_properties(0);
  MESSAGE(rt::to_string(p));
  CHECK_FALSE(p.name.empty());
  CHECK(p.cc_major >= 5);
  CHECK(p.sm_count > 0);
  CHECK(p.warp_size == 32);
  CHECK(p.max_threads_per_block == 1024);
  CHECK(p.shared_memory_per_block == 48 * 1024);
  CHECK(p.shared_memory_per_block_optin >= p.shared_memory_per_block);
  CHECK(p.shared_memory_per_sm >= p.shared_memory_per_block_optin);
  CHECK(p.l2_cache_bytes > 0);
  CHECK(p.total_memory_bytes > (std::size_t{1} << 30));
  CHECK(p.cluster_launch == (p.cc_major >= 9));
}

TEST_CASE("runtime: contexts are primary contexts, retained and current") {
  TESSEL_REQUIRE_GPU(0);
  void* primary = tessel::test::gpu_context().native();
  {
    rt::Context again(0);  // the same primary context, retained once more
    CHECK(again.native() == primary);
    CHECK(again.device() == 0);
    rt::Context moved = std::move(again);
    CHECK(moved.native() == primary);
    CHECK(again.native() == nullptr);  // NOLINT: moved-from is empty by contract
    moved.synchronize();
  }
  // Still usable after the extra reference went away.
  rt::DeviceBuffer b(16);
  CHECK(b.ptr() != 0);
  const int count = rt::device_count();
  CHECK_THROWS_WITH_AS(
      rt::Context{count},
      ("device " + std::to_string(count) + " does not exist: the driver sees " + std::to_string(count) + " device(s)")
          .c_str(),
      tessel::Error);
}
