// elementwise_check.hpp: random problems for an elementwise configuration and the check of a
// result against the host reference, independent of where the kernel ran (GPU or emulator).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tessel/testing/demo_run.hpp"
#include "tessel/kernels/elementwise.hpp"

namespace tessel::kernels {

// Operands that meet what `c` assumes: a ragged shape of its rank (the static shape when static)
// with at most about `max_elements` elements, strides following each operand's major with padded
// rows (multiples of the vector), and fresh random values that are never zero (B stays away from
// zero for div). Views' `data` are byte offsets inside their buffers: the runner adds each
// buffer's address (offset[x] leaves room to misalign on purpose).
struct ElementwiseCase {
  ElementwiseArguments args;
  std::vector<uint8_t> a, b;  // the A and B buffers (B empty for unary operations)
  size_t c_bytes = 0;         // the C buffer: its span, then kGuardBytes that must stay poisoned
  static constexpr size_t kGuardBytes = 512;
  static constexpr uint8_t kPoison = 0xFF;  // NaN for every float type
};
ElementwiseCase random_elementwise_case(const ElementwiseConfig& c, std::mt19937_64& rng, int64_t max_elements);
// The same for the host API: any views (given with data = byte offsets), filled at random.
void fill_random(ElementwiseCase& k, std::mt19937_64& rng);

// Compares C's buffer after the kernel (`c_out`, c_bytes + guard) with the host reference on the
// same inputs: every element of C equal bit for bit, every other byte (padding, guard) still the
// poison. Returns "" when all match, else what differs (the first few coordinates and values).
std::string check_elementwise(const ElementwiseCase& k, const std::vector<uint8_t>& c_out);

// The views with each operand's data offset by its buffer's address (A, B, C).
ElementwiseArguments at_addresses(const ElementwiseArguments& args, uint64_t a, uint64_t b, uint64_t c);

}  // namespace tessel::kernels
