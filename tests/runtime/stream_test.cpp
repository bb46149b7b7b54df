// stream_test.cpp: streams and events, timing included.
#include <doctest/doctest.h>

#include <cstdint>

#include "gpu.hpp"
#include "kernels.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;

TEST_CASE("runtime: events around kernels measure a positive time") {
  TESSEL_REQUIRE_GPU(80);
  rt::Function vadd = rt::Module::load_ptx(tessel::test::kVectorAddPtx).function("tessel_test_vadd");
  const std::uint32_t n = 1 << 24;
  rt::DeviceBuffer a(n * 4), b(n * 4), c(n * 4);
  a.fill(0);
  b.fill(0);
  rt::Stream stream;
  rt::Event start, stop;
  rt::LaunchConfig config;
  config.grid = {n / 256, 1, 1};
  config.block = {256, 1, 1};
  config.stream = stream;
  start.record(stream);
  for (int i = 0; i < 10; ++i) rt::launch(vadd, config, rt::ArgPack(a.ptr(), b.ptr(), c.ptr(), n));
  stop.record(stream);
  stop.synchronize();
  CHECK(start.done());
  CHECK(stop.done());
  float ms = rt::elapsed_ms(start, stop);
  MESSAGE("10 vector adds of 2^24 floats: " << ms << " ms");
  CHECK(ms > 0.0f);
  CHECK(ms < 10000.0f);
}

TEST_CASE("runtime: events on the default stream and without timing") {
  TESSEL_REQUIRE_GPU(0);
  rt::Event e(false);
  e.record();
  e.synchronize();
  CHECK(e.done());
  rt::Event timed;
  timed.record();
  timed.synchronize();
  // An event without timing cannot be timed: the driver says so.
  CHECK_THROWS_AS(rt::elapsed_ms(timed, e), tessel::DriverError);
  rt::Stream s;
  rt::Stream moved = std::move(s);
  CHECK(moved.native() != nullptr);
  CHECK(s.native() == nullptr);  // NOLINT: moved-from is empty by contract
  CHECK_THROWS_WITH_AS(s.synchronize(), "Stream::synchronize: this Stream was moved from", tessel::Error);
  moved.synchronize();
}
