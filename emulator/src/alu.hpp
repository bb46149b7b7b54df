// alu.hpp: the value semantics of the arithmetic, logic, comparison, conversion and atomic
// instructions on raw register bits (PTX ISA, "Integer Arithmetic", "Floating-Point", "cvt").
#pragma once

#include <cstdint>

#include "program.hpp"

namespace tessel::emu::detail {

inline uint64_t width_mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
inline int64_t sext(uint64_t v, int bits) {
  const int s = 64 - bits;
  return static_cast<int64_t>(v << s) >> s;
}
// A value of type t (in its low bits) as a register holds it: signed types sign-extended, so that
// a narrower signed value fills a wider register as ld.s8 and cvt.s8 leave it.
inline uint64_t extend(uint64_t v, codegen::Type t) {
  const int b = codegen::bits(t);
  return codegen::is_signed(t) && b < 64 ? static_cast<uint64_t>(sext(v, b)) : v;
}

// The type of what an instruction writes: the doubled type of .wide, pred for setp, else type.
codegen::Type result_type(const codegen::Instr& i);

// add sub mul mad fma div rem min max neg abs and or xor not shl shr of d.type on a, b, c
// (unused operands ignored). Throws Fault for an integer division by zero.
uint64_t arith(const Decoded& d, uint64_t a, uint64_t b, uint64_t c);
// setp's comparison: ordered for floats (false when either is NaN, .ne included).
bool compare(codegen::Cmp c, codegen::Type t, uint64_t a, uint64_t b);
// cvt from d.type2 to d.type with d.rnd, .sat and .ftz.
uint64_t convert(const Decoded& d, uint64_t a);
// The value an atomic leaves in memory, given the old value and the operands b (and c for cas).
uint64_t atomic_result(codegen::AtomOp op, codegen::Type t, uint64_t old, uint64_t b, uint64_t c);

}  // namespace tessel::emu::detail
