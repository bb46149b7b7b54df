// memory_test.cpp: the emulated global memory: aligned buffers with unmapped gaps, checked host
// copies, poison in fresh buffers, and descriptions of addresses outside every buffer.
#include <doctest/doctest.h>

#include <vector>

#include "emulator/support.hpp"

using namespace tessel;

TEST_CASE("emulator: Memory allocates aligned buffers with gaps and checks host copies") {
  emu::Memory mem;
  const uint64_t a = mem.alloc(100), b = mem.alloc(10, 4096);
  CHECK(a == emu::Memory::kBase);
  CHECK(b % 4096 == 0);
  CHECK(b >= a + 100 + emu::Memory::kGap);
  // Fresh buffers hold the poison byte.
  CHECK(mem.read<uint8_t>(a, 100) == std::vector<uint8_t>(100, 0xff));
  mem.write(a, std::vector<int32_t>{1, 2, 3});
  CHECK(mem.read<int32_t>(a, 3) == std::vector<int32_t>{1, 2, 3});
  CHECK(mem.read_value<int32_t>(a + 4) == 2);
  CHECK(mem.find(a + 96, 4) != nullptr);
  CHECK(mem.find(a + 97, 4) == nullptr);  // crosses the end
  CHECK(mem.find(a + 100, 1) == nullptr);
  CHECK(mem.describe(a + 104) == "4 bytes past the end of the buffer at " + emu::hex(a) + " (100 bytes)");
  CHECK(mem.describe(a - 8) == "8 bytes below the first buffer, at " + emu::hex(a));
  CHECK_THROWS_WITH_AS(mem.write(a + 98, std::vector<int32_t>{1}),
                       ("emulator: Memory::write of 4 bytes at " + emu::hex(a + 98) +
                        ": at offset 98 of the buffer at " + emu::hex(a) + " (100 bytes)")
                           .c_str(),
                       tessel::Error);
  CHECK_THROWS_WITH_AS(mem.alloc(8, 24), "emulator: Memory::alloc alignment 24 is not a power of two", tessel::Error);
}
