// memory_test.cpp: device buffers and copies.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;

TEST_CASE("runtime: DeviceBuffer checks byte ranges before touching the device") {
  rt::DeviceBuffer empty;
  CHECK(empty.ptr() == 0);
  CHECK(empty.size() == 0);
  int x = 0;
  CHECK_THROWS_WITH_AS(empty.upload(&x, 4),
                       "DeviceBuffer::upload: 4 bytes at offset 0 do not fit in a buffer of 0 bytes", tessel::Error);
  CHECK_THROWS_WITH_AS(empty.download(&x, 1, 3),
                       "DeviceBuffer::download: 1 bytes at offset 3 do not fit in a buffer of 0 bytes", tessel::Error);
  CHECK(empty.to_vector<int>().empty());
  CHECK_NOTHROW(empty.upload(&x, 0));
}

// --- GPU ------------------------------------------------------------------------------------

TEST_CASE("runtime: bytes survive a round trip through device memory") {
  TESSEL_REQUIRE_GPU(0);
  auto rng = tessel::test::gpu_rng();
  INFO("reproduce with TESSEL_SEED=" << tessel::test::gpu_seed());
  const std::size_t n = 1 + rng() % (1 << 20);
  INFO("n = " << n);
  std::vector<std::uint8_t> host(n);
  for (auto& b : host) b = static_cast<std::uint8_t>(rng());

  rt::DeviceBuffer a = rt::DeviceBuffer::from(host);
  CHECK(a.size() == n);
  CHECK(a.ptr() % 256 == 0);
  CHECK(a.to_vector<std::uint8_t>() == host);

  rt::DeviceBuffer b(n);
  b.fill(0xFF);
  CHECK(b.to_vector<std::uint8_t>() == std::vector<std::uint8_t>(n, 0xFF));
  rt::copy_d2d(b.ptr(), a.ptr(), n);
  CHECK(b.to_vector<std::uint8_t>() == host);

  // Partial ranges at an offset.
  const std::size_t off = n / 3, len = n - off;
  std::vector<std::uint8_t> part(len, 0);
  b.fill(0);
  b.upload(host.data() + off, len, off);
  b.download(part.data(), len, off);
  CHECK(std::equal(part.begin(), part.end(), host.begin() + static_cast<std::ptrdiff_t>(off)));
  CHECK_THROWS_AS(b.upload(host.data(), n, 1), tessel::Error);

  // Moving hands the allocation over.
  rt::DevicePtr p = a.ptr();
  rt::DeviceBuffer c = std::move(a);
  CHECK(c.ptr() == p);
  CHECK(a.ptr() == 0);  // NOLINT: moved-from is empty by contract

  rt::MemoryInfo info = rt::memory_info();
  CHECK(info.total > 0);
  CHECK(info.free <= info.total);
}

TEST_CASE("runtime: stream-ordered copies and fills") {
  TESSEL_REQUIRE_GPU(0);
  const std::size_t n = 1 << 16;
  std::vector<std::uint32_t> in(n), out(n, 0);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>(i * 2654435761u);
  rt::DeviceBuffer a(n * 4), b(n * 4);
  rt::Stream stream;
  rt::fill_bytes(b.ptr(), 0xFF, n * 4, stream);
  rt::copy_h2d(a.ptr(), in.data(), n * 4, stream);
  rt::copy_d2d(b.ptr(), a.ptr(), n * 4, stream);
  rt::copy_d2h(out.data(), b.ptr(), n * 4, stream);
  stream.synchronize();
  CHECK(out == in);
}

TEST_CASE("runtime: an allocation larger than the device is a DriverError") {
  TESSEL_REQUIRE_GPU(0);
  const std::size_t too_much = rt::device_properties(0).total_memory_bytes * 2;
  try {
    rt::DeviceBuffer b(too_much);
    FAIL("allocated " << too_much << " bytes");
  } catch (const tessel::DriverError& e) {
    CHECK(e.call() == "cuMemAlloc");
    CHECK(e.name() == "CUDA_ERROR_OUT_OF_MEMORY");
    CHECK(std::string(e.what()).find(std::to_string(too_much) + " bytes") != std::string::npos);
  }
}
