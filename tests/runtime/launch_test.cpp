// launch_test.cpp: launch configurations and kernel arguments (on the CPU), and launches of
// small PTX kernels, clusters and large dynamic shared memory included (on a GPU).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gpu.hpp"
#include "kernels.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;

TEST_CASE("runtime: validate_launch names the extent that is out of range") {
  rt::LaunchConfig c;
  CHECK_NOTHROW(rt::validate_launch(c));
  c.grid = {132, 65535, 65535};
  c.block = {32, 32, 1};
  CHECK_NOTHROW(rt::validate_launch(c));

  c = {};
  c.block = {0, 1, 1};
  CHECK_THROWS_WITH_AS(rt::validate_launch(c), "launch: block (0,1,1) has an extent of 0 (every extent must be >= 1)",
                       tessel::Error);
  c = {};
  c.grid = {1, 65536, 1};
  CHECK_THROWS_WITH_AS(rt::validate_launch(c), "launch: grid (1,65536,1) exceeds 65535 blocks in y or z",
                       tessel::Error);
  c = {};
  c.block = {1, 1, 65};
  CHECK_THROWS_WITH_AS(rt::validate_launch(c),
                       "launch: block (1,1,65) exceeds the largest block extents (1024,1024,64)", tessel::Error);
  c.block = {64, 32, 1};
  CHECK_THROWS_WITH_AS(rt::validate_launch(c), "launch: block (64,32,1) has 2048 threads; at most 1024", tessel::Error);
  c = {};
  c.grid = {6, 4, 1};
  c.cluster = {4, 2, 1};
  CHECK_THROWS_WITH_AS(rt::validate_launch(c),
                       "launch: grid (6,4,1) is not a whole number of clusters (4,2,1) (each grid extent must be "
                       "divisible by the cluster's)",
                       tessel::Error);
  c.cluster = {0, 1, 1};
  CHECK_THROWS_WITH_AS(rt::validate_launch(c), "launch: cluster (0,1,1) has an extent of 0 (every extent must be >= 1)",
                       tessel::Error);
}

TEST_CASE("runtime: ArgPack stores each argument at its own alignment") {
  rt::TensorMap map;
  for (std::size_t i = 0; i < map.words.size(); ++i) map.words[i] = 0x0101010101010101ull * i;
  struct Pair {
    float a;
    std::int32_t b;
  };
  rt::ArgPack args(std::int8_t{-3}, rt::DevicePtr{0xdead0000beef}, map, std::uint16_t{7}, Pair{1.5f, -9}, 2.25);
  REQUIRE(args.size() == 6);
  std::vector<void*> p = args.pointers();
  REQUIRE(p.size() == 6);
  CHECK(*static_cast<std::int8_t*>(p[0]) == -3);
  CHECK(reinterpret_cast<std::uintptr_t>(p[1]) % 8 == 0);
  CHECK(*static_cast<rt::DevicePtr*>(p[1]) == 0xdead0000beefull);
  CHECK(reinterpret_cast<std::uintptr_t>(p[2]) % 64 == 0);
  CHECK(std::memcmp(p[2], &map, sizeof map) == 0);
  CHECK(*static_cast<std::uint16_t*>(p[3]) == 7);
  CHECK(static_cast<Pair*>(p[4])->a == 1.5f);
  CHECK(static_cast<Pair*>(p[4])->b == -9);
  CHECK(*static_cast<double*>(p[5]) == 2.25);

  CHECK_THROWS_WITH_AS(args.add_bytes(&map, 8, 3), "ArgPack: alignment 3 is not a power of two <= 64", tessel::Error);
  CHECK(rt::ArgPack().pointers().empty());
}

TEST_CASE("runtime: launching without a function is an error") {
  rt::LaunchConfig c;
  CHECK_THROWS_WITH_AS(rt::launch(rt::Function(), c, rt::ArgPack()), "launch: no function", tessel::Error);
}

// --- GPU ------------------------------------------------------------------------------------

// Fresh random inputs of ragged sizes, outputs poisoned (0xFF bytes: a NaN) with a guard zone
// after them that must stay poisoned.
TEST_CASE("runtime: a PTX vector add launched with cuLaunchKernelEx matches the host") {
  TESSEL_REQUIRE_GPU(80);
  auto rng = tessel::test::gpu_rng();
  INFO("reproduce with TESSEL_SEED=" << tessel::test::gpu_seed());
  rt::Function vadd = rt::Module::load_ptx(tessel::test::kVectorAddPtx).function("tessel_test_vadd");
  std::uniform_real_distribution<float> value(-1000.0f, 1000.0f);
  for (std::uint32_t n : {1u, 255u, 256u, 1000u, static_cast<std::uint32_t>(rng() % 1000000 + 1)}) {
    INFO("n = " << n);
    const std::uint32_t guard = 64;
    std::vector<float> a(n), b(n);
    for (auto& x : a) x = value(rng);
    for (auto& x : b) x = value(rng);
    rt::DeviceBuffer da = rt::DeviceBuffer::from(a), db = rt::DeviceBuffer::from(b);
    rt::DeviceBuffer dc((n + guard) * sizeof(float));
    dc.fill(0xFF);

    rt::LaunchConfig config;
    config.block = {256, 1, 1};
    config.grid = {(n + 255) / 256, 1, 1};
    rt::launch(vadd, config, rt::ArgPack(da.ptr(), db.ptr(), dc.ptr(), n));
    std::vector<float> c = dc.to_vector<float>();

    std::size_t wrong = 0;
    for (std::uint32_t i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];  // one IEEE add: exact
    CHECK(wrong == 0);
    std::vector<std::uint8_t> tail(guard * sizeof(float));
    std::memcpy(tail.data(), c.data() + n, tail.size());
    CHECK(std::count(tail.begin(), tail.end(), std::uint8_t{0xFF}) == static_cast<std::ptrdiff_t>(tail.size()));
  }
}

TEST_CASE("runtime: launch takes a vector of argument pointers and a stream") {
  TESSEL_REQUIRE_GPU(80);
  rt::Function vadd = rt::Module::load_ptx(tessel::test::kVectorAddPtx).function("tessel_test_vadd");
  const std::uint32_t n = 4096;
  std::vector<float> a(n, 1.25f), b(n, 2.5f), c(n, 0.0f);
  rt::DeviceBuffer da(n * 4), db(n * 4), dc(n * 4);
  rt::Stream stream;
  rt::copy_h2d(da.ptr(), a.data(), n * 4, stream);
  rt::copy_h2d(db.ptr(), b.data(), n * 4, stream);
  rt::fill_bytes(dc.ptr(), 0xFF, n * 4, stream);
  rt::DevicePtr pa = da.ptr(), pb = db.ptr(), pc = dc.ptr();
  std::vector<void*> args = {&pa, &pb, &pc, const_cast<std::uint32_t*>(&n)};
  rt::LaunchConfig config;
  config.grid = {n / 128, 1, 1};
  config.block = {128, 1, 1};
  config.stream = stream;
  rt::launch(vadd, config, args);
  rt::copy_d2h(c.data(), dc.ptr(), n * 4, stream);
  stream.synchronize();
  CHECK(std::count(c.begin(), c.end(), 3.75f) == n);
}

TEST_CASE("runtime: a cluster launch with more than 48 KiB of dynamic shared memory") {
  TESSEL_REQUIRE_GPU(90);
  rt::DeviceProperties props = rt::device_properties(0);
  REQUIRE(props.cluster_launch);
  rt::Function fn = rt::Module::load_ptx(tessel::test::kClusterInfoPtx).function("tessel_test_cluster_info");
  const unsigned smem = std::min(100u * 1024u, static_cast<unsigned>(props.shared_memory_per_block_optin));
  REQUIRE(smem > 48u * 1024u);

  rt::LaunchConfig config;
  config.grid = {8, 1, 1};
  config.block = {32, 1, 1};
  config.cluster = {2, 1, 1};
  config.dynamic_shared_bytes = smem;
  rt::DeviceBuffer out(8 * 4 * sizeof(std::uint32_t));
  out.fill(0xFF);
  // Above 48 KiB the kernel must opt in first; the driver refuses the launch otherwise.
  CHECK_THROWS_AS(rt::launch(fn, config, rt::ArgPack(out.ptr(), smem)), tessel::DriverError);
  fn.set_max_dynamic_shared_memory(static_cast<int>(smem));
  CHECK(fn.attributes().max_dynamic_shared_bytes == static_cast<int>(smem));
  rt::launch(fn, config, rt::ArgPack(out.ptr(), smem));
  std::vector<std::uint32_t> got = out.to_vector<std::uint32_t>();
  for (std::uint32_t b = 0; b < 8; ++b) {
    INFO("block " << b);
    CHECK(got[4 * b + 0] == b);
    CHECK(got[4 * b + 1] == 2);      // %cluster_nctarank
    CHECK(got[4 * b + 2] == b % 2);  // %cluster_ctarank
    CHECK(got[4 * b + 3] == b + 1000);
  }
}
