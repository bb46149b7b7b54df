// matrix.cpp: ldmatrix and stmatrix, the warp collectives that move 8x8 matrices of 16-bit
// elements between shared memory and registers. PTX ISA 9.0 §9.7.14.5.15 ldmatrix and
// §9.7.14.5.16 stmatrix: lanes 8j..8j+7 give the shared addresses of the 8 rows (16 bytes each,
// 16-byte aligned) of matrix j; lane t's register j holds, of matrix j, the elements (row t/4,
// columns 2*(t%4) and 2*(t%4)+1), the lower column in the low half; with .trans it holds the
// elements (rows 2*(t%4) and 2*(t%4)+1, column t/4) of the rows as stored.
#include "block.hpp"
#include "fault.hpp"

namespace tessel::emu::detail {

using namespace codegen;

namespace {
inline uint64_t value(const uint64_t* R, const Src& s) { return s.imm ? s.value : R[s.slot]; }
}  // namespace

void BlockRunner::matrix(const Decoded& d, uint32_t first) {
  const int num = d.n;
  const bool trans = d.has(kTrans), store = d.op == Op::Stmatrix;
  uint32_t rows[32];
  for (int r = 0; r < 8 * num; ++r) {
    const uint64_t a = value(regs(first + r), d.src[0]) + static_cast<uint64_t>(d.offset);
    if (a > 0xffffffff) fault("out-of-bounds shared access", "lane " + std::to_string(r) + " gives shared address " + hex(a));
    if (a % 16 != 0) {
      fault("misaligned address", "lane " + std::to_string(r) + " gives the row address " + hex(a) +
                                      ", which is not a multiple of 16 (a matrix row is 16 bytes, 16-byte aligned)");
    }
    rows[r] = static_cast<uint32_t>(a);
  }
  const uint64_t* mask = L_.program.slot_mask.data();
  for (uint32_t l = 0; l < 32; ++l) {
    uint64_t* R = regs(first + l);
    for (int j = 0; j < num; ++j) {
      // The shared addresses of this lane's two elements of matrix j (low half, high half).
      uint32_t at[2];
      for (int h = 0; h < 2; ++h) {
        const uint32_t row = trans ? 2 * (l % 4) + h : l / 4, col = trans ? l / 4 : 2 * (l % 4) + h;
        at[h] = rows[8 * j + row] + 2 * col;
      }
      if (store) {
        const uint32_t v = static_cast<uint32_t>(value(R, d.src[1 + j]));
        const uint16_t lo = static_cast<uint16_t>(v), hi = static_cast<uint16_t>(v >> 16);
        shared_.store(at[0], &lo, 2, first + l, false);
        shared_.store(at[1], &hi, 2, first + l, false);
      } else {
        uint16_t lo = 0, hi = 0;
        shared_.load(at[0], &lo, 2, first + l, false);
        shared_.load(at[1], &hi, 2, first + l, false);
        if (d.dst[j] >= 0) R[d.dst[j]] = (uint64_t{hi} << 16 | lo) & mask[d.dst[j]];
      }
    }
  }
}

}  // namespace tessel::emu::detail
