// alu.cpp: value semantics of arithmetic, logic, comparisons, conversions and atomics. Integers
// work on the low bits(type) bits; floats widen to double exactly and round back to their format
// (float.hpp), so f16 and bf16 round once to nearest even as the hardware does.
#include "alu.hpp"

#include <bit>
#include <cmath>

#include "fault.hpp"
#include "float.hpp"

namespace tessel::emu::detail {

using namespace codegen;

Type result_type(const Instr& i) {
  if (i.op == Op::Setp) return Type::Pred;
  if ((i.op == Op::Mul || i.op == Op::Mad) && i.has(kWide)) {
    const bool s = is_signed(i.type);
    switch (bits(i.type)) {
      case 16:
        return s ? Type::S32 : Type::U32;
      case 32:
        return s ? Type::S64 : Type::U64;
      default:
        return i.type;
    }
  }
  return i.type;
}

namespace {

// --- integers -------------------------------------------------------------------------------

uint64_t mul_hi(uint64_t a, uint64_t b, int w, bool s) {
  if (w < 64) {
    if (s) return static_cast<uint64_t>((sext(a, w) * sext(b, w)) >> w);
    return (a * b) >> w;
  }
  if (s) return static_cast<uint64_t>((static_cast<__int128>(sext(a, 64)) * sext(b, 64)) >> 64);
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

uint64_t mul_wide(uint64_t a, uint64_t b, int w, bool s) {
  if (s) return static_cast<uint64_t>(sext(a, w) * sext(b, w));
  return (a & width_mask(w)) * (b & width_mask(w));
}

uint64_t saturate_signed(__int128 v, int w) {
  const __int128 lo = -(static_cast<__int128>(1) << (w - 1)), hi = (static_cast<__int128>(1) << (w - 1)) - 1;
  return static_cast<uint64_t>(v < lo ? lo : v > hi ? hi : v);
}

uint64_t integer(const Decoded& d, uint64_t a, uint64_t b, uint64_t c) {
  const Type t = d.type;
  const int w = t == Type::Pred ? 1 : bits(t);
  const bool s = is_signed(t);
  const uint64_t m = width_mask(w);
  a &= m;
  switch (d.op) {
    case Op::Add:
      if (d.has(kSat) && s) return saturate_signed(static_cast<__int128>(sext(a, w)) + sext(b, w), w) & m;
      return (a + b) & m;
    case Op::Sub:
      if (d.has(kSat) && s) return saturate_signed(static_cast<__int128>(sext(a, w)) - sext(b, w), w) & m;
      return (a - b) & m;
    case Op::Mul:
      if (d.has(kHi)) return mul_hi(a, b & m, w, s) & m;
      if (d.has(kWide)) return mul_wide(a, b, w, s) & width_mask(2 * w);
      return (a * b) & m;
    case Op::Mad:
      if (d.has(kHi)) return (mul_hi(a, b & m, w, s) + c) & m;
      if (d.has(kWide)) return (mul_wide(a, b, w, s) + c) & width_mask(2 * w);
      return (a * b + c) & m;
    case Op::Div:
    case Op::Rem: {
      b &= m;
      if (b == 0) fault("integer division by zero", std::string(op_info(d.op).root) + " by 0");
      if (!s) return (d.op == Op::Div ? a / b : a % b) & m;
      const int64_t x = sext(a, w), y = sext(b, w);
      if (y == -1) return d.op == Op::Div ? (0 - a) & m : 0;  // min / -1 wraps, as the hardware does
      return static_cast<uint64_t>(d.op == Op::Div ? x / y : x % y) & m;
    }
    case Op::Min:
    case Op::Max: {
      b &= m;
      const bool less = s ? sext(a, w) < sext(b, w) : a < b;
      return (d.op == Op::Min) == less ? a : b;
    }
    case Op::Neg:
      return (0 - a) & m;
    case Op::Abs:
      return sext(a, w) < 0 ? (0 - a) & m : a;
    case Op::And:
      return a & b & m;
    case Op::Or:
      return (a | b) & m;
    case Op::Xor:
      return (a ^ b) & m;
    case Op::Not:
      return ~a & m;
    case Op::Shl:
      b &= 0xffffffff;  // the amount is u32; past the width, everything is shifted out
      return b >= static_cast<uint64_t>(w) ? 0 : (a << b) & m;
    case Op::Shr:
      b &= 0xffffffff;
      if (s) return static_cast<uint64_t>(sext(a, w) >> (b >= static_cast<uint64_t>(w) ? w - 1 : b)) & m;
      return b >= static_cast<uint64_t>(w) ? 0 : a >> b;
    default:
      fault("not emulated yet", std::string(ptx_name(t)) + " form of this instruction");
  }
}

// --- floats ---------------------------------------------------------------------------------

bool is_subnormal(uint64_t v, const NumberFormat& f) {
  return ((v >> f.mantissa_bits) & width_mask(f.exponent_bits)) == 0 && (v & width_mask(f.mantissa_bits)) != 0;
}
uint64_t flush(uint64_t v, const NumberFormat& f) { return is_subnormal(v, f) ? v & f.sign_bit() : v; }

// A double result rounded to format f (NaN canonical), with .sat clamping to [0, 1].
uint64_t finish(double x, const NumberFormat& f, Round r, bool sat, bool ftz) {
  if (sat) x = std::isnan(x) ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
  uint64_t v;
  if (std::isnan(x)) {
    v = f.canonical_nan;
  } else if (f.type == Type::F64) {
    v = std::bit_cast<uint64_t>(x);
  } else if (f.type == Type::F32 && (r == Round::None || r == Round::Rn)) {
    v = std::bit_cast<uint32_t>(static_cast<float>(x));  // the host's conversion rounds to nearest even
  } else {
    v = codegen::encode(f, x, rounding_of(r));
  }
  return ftz ? flush(v, f) : v;
}

// -0 < +0, and a NaN operand gives way to the other (IEEE 754-2019 minimumNumber/maximumNumber).
uint64_t min_max(bool is_min, uint64_t a, uint64_t b, const NumberFormat& f) {
  const double x = codegen::decode(f, a), y = codegen::decode(f, b);
  if (std::isnan(x) && std::isnan(y)) return f.canonical_nan;
  if (std::isnan(x)) return b;
  if (std::isnan(y)) return a;
  if (x == y) {  // equal values: differ only in the sign of zero
    const bool a_neg = (a & f.sign_bit()) != 0;
    return (is_min == a_neg) ? a : b;
  }
  return (is_min == (x < y)) ? a : b;
}

uint64_t scalar_float(const Decoded& d, const NumberFormat& f, uint64_t a, uint64_t b, uint64_t c) {
  const bool ftz = d.has(kFtz), sat = d.has(kSat);
  if (ftz) {
    a = flush(a, f);
    b = flush(b, f);
    c = flush(c, f);
  }
  const Round r = d.rnd;
  const double x = codegen::decode(f, a), y = codegen::decode(f, b), z = codegen::decode(f, c);
  switch (d.op) {
    case Op::Add:
      return finish(fp_add(x, y, r), f, r, sat, ftz);
    case Op::Sub:
      return finish(fp_sub(x, y, r), f, r, sat, ftz);
    case Op::Mul:
      return finish(fp_mul(x, y, r), f, r, sat, ftz);
    case Op::Div:  // .approx and .full are run as the exact quotient
      return finish(fp_div(x, y, r), f, r, sat, ftz);
    case Op::Fma:
    case Op::Mad:
      if (f.type == Type::F64) return finish(fp_fma(x, y, z, r), f, r, sat, ftz);
      if (f.type == Type::F32) {
        // f32: a*b is exact in double but the sum is not; fmaf rounds once.
        if (r == Round::None || r == Round::Rn) {
          return finish(std::fma(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)), f, r, sat, ftz);
        }
        return finish(fp_fma(x, y, z, r), f, r, sat, ftz);  // directed: two roundings one way are one
      }
      if (r == Round::None || r == Round::Rn) return finish(fma_round_to_odd(x, y, z), f, r, sat, ftz);
      return finish(fp_fma(x, y, z, r), f, r, sat, ftz);
    case Op::Min:
      return min_max(true, a, b, f);
    case Op::Max:
      return min_max(false, a, b, f);
    case Op::Neg:
    case Op::Abs:
      // A NaN gives an unspecified NaN (PTX ISA); an H100 gives the canonical one for f32, f64 and
      // f16 (f16 seen 2026-11-23: neg and abs of 0x7cb2 gave 0x7fff). bf16 flips the bit (not seen otherwise).
      if ((f.type == Type::F32 || f.type == Type::F64 || f.type == Type::F16) && std::isnan(x)) return f.canonical_nan;
      return d.op == Op::Neg ? a ^ f.sign_bit() : a & ~f.sign_bit();
    default:
      fault("not emulated yet", std::string(ptx_name(d.type)) + " form of this instruction");
  }
}

}  // namespace

uint64_t arith(const Decoded& d, uint64_t a, uint64_t b, uint64_t c) {
  const Type t = d.type;
  if (!is_float(t)) return integer(d, a, b, c);
  if (t == Type::F16x2 || t == Type::BF16x2) {
    const NumberFormat& f = number_format(t);
    const uint64_t lo = scalar_float(d, f, a & 0xffff, b & 0xffff, c & 0xffff);
    const uint64_t hi = scalar_float(d, f, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
    return (lo & 0xffff) | ((hi & 0xffff) << 16);
  }
  if (t == Type::F16 || t == Type::BF16 || t == Type::F32 || t == Type::F64) {
    const NumberFormat& f = number_format(t);
    const uint64_t m = width_mask(bits(t));
    return scalar_float(d, f, a & m, b & m, c & m);
  }
  fault("not emulated yet", std::string("arithmetic on ") + ptx_name(t));
}

bool compare(Cmp c, Type t, uint64_t a, uint64_t b) {
  if (is_float(t)) {
    if (t != Type::F16 && t != Type::BF16 && t != Type::F32 && t != Type::F64) {
      fault("not emulated yet", std::string("setp on ") + ptx_name(t));
    }
    const NumberFormat& f = number_format(t);
    const uint64_t m = width_mask(bits(t));
    const double x = codegen::decode(f, a & m), y = codegen::decode(f, b & m);
    if (std::isnan(x) || std::isnan(y)) return false;  // the ordered comparisons
    switch (c) {
      case Cmp::Eq:
        return x == y;
      case Cmp::Ne:
        return x != y;
      case Cmp::Lt:
      case Cmp::Lo:
        return x < y;
      case Cmp::Le:
      case Cmp::Ls:
        return x <= y;
      case Cmp::Gt:
      case Cmp::Hi:
        return x > y;
      case Cmp::Ge:
      case Cmp::Hs:
        return x >= y;
      case Cmp::None:
        break;
    }
    fault("not emulated yet", "setp without a comparison");
  }
  const int w = t == Type::Pred ? 1 : bits(t);
  const uint64_t m = width_mask(w);
  a &= m;
  b &= m;
  const bool s = is_signed(t);
  const int64_t x = sext(a, w), y = sext(b, w);
  switch (c) {
    case Cmp::Eq:
      return a == b;
    case Cmp::Ne:
      return a != b;
    case Cmp::Lt:
      return s ? x < y : a < b;
    case Cmp::Le:
      return s ? x <= y : a <= b;
    case Cmp::Gt:
      return s ? x > y : a > b;
    case Cmp::Ge:
      return s ? x >= y : a >= b;
    case Cmp::Lo:
      return a < b;
    case Cmp::Ls:
      return a <= b;
    case Cmp::Hi:
      return a > b;
    case Cmp::Hs:
      return a >= b;
    case Cmp::None:
      break;
  }
  fault("not emulated yet", "setp without a comparison");
}

uint64_t convert(const Decoded& d, uint64_t a) {
  const Type to = d.type, from = d.type2;
  const bool plain_float = [](Type t) {
    return t == Type::F16 || t == Type::BF16 || t == Type::F32 || t == Type::F64;
  }(to);
  const bool from_float = from == Type::F16 || from == Type::BF16 || from == Type::F32 || from == Type::F64;
  if ((is_float(to) && !plain_float) || (is_float(from) && !from_float) || to == Type::Pred || from == Type::Pred) {
    fault("not emulated yet", std::string("cvt from ") + ptx_name(from) + " to " + ptx_name(to));
  }
  const int wf = bits(from), wt = bits(to);
  a &= width_mask(wf);
  if (from_float) {
    const NumberFormat& ff = number_format(from);
    if (d.has(kFtz)) a = flush(a, ff);
    const double x = codegen::decode(ff, a);
    if (!plain_float) return to_integer(x, wt, is_signed(to), d.rnd);  // saturates; NaN -> 0
    const NumberFormat& ft = number_format(to);
    // cvt.f32.bf16 keeps a NaN's payload (it only widens the bits; measured on an H100, where
    // cvt.f32.f16 writes the canonical NaN instead).
    if (from == Type::BF16 && to == Type::F32 && !d.has(kSat) && std::isnan(x)) return a << 16;
    const Round r = d.rnd;
    if (r == Round::Rni || r == Round::Rzi || r == Round::Rmi || r == Round::Rpi) {
      return finish(round_integral(x, r), ft, Round::Rn, d.has(kSat), d.has(kFtz));
    }
    return finish(x, ft, r, d.has(kSat), d.has(kFtz));
  }
  // From an integer.
  const bool s = is_signed(from);
  const int64_t sv = sext(a, wf);
  if (plain_float) {
    const bool neg = s && sv < 0;
    const uint64_t mag = neg ? 0 - static_cast<uint64_t>(sv) : a;
    const NumberFormat& ft = number_format(to);
    uint64_t v = codegen::encode_scaled(ft, neg, mag, 0, rounding_of(d.rnd));
    if (d.has(kSat)) v = finish(codegen::decode(ft, v), ft, Round::Rn, true, false);
    return v;
  }
  // Integer to integer: extend by the source's signedness, clamp with .sat, truncate.
  if (d.has(kSat)) {
    const __int128 v = s ? static_cast<__int128>(sv) : static_cast<__int128>(a);
    const bool ts = is_signed(to);
    const __int128 lo = ts ? -(static_cast<__int128>(1) << (wt - 1)) : 0;
    const __int128 hi = ts ? (static_cast<__int128>(1) << (wt - 1)) - 1 : (static_cast<__int128>(1) << wt) - 1;
    return static_cast<uint64_t>(v < lo ? lo : v > hi ? hi : v) & width_mask(wt);
  }
  return (s ? static_cast<uint64_t>(sv) : a) & width_mask(wt);
}

uint64_t atomic_result(AtomOp op, Type t, uint64_t old, uint64_t b, uint64_t c) {
  const int w = bits(t);
  const uint64_t m = width_mask(w);
  old &= m;
  b &= m;
  c &= m;
  const bool s = is_signed(t);
  if (is_float(t) && (op == AtomOp::Add || op == AtomOp::Min || op == AtomOp::Max)) {
    Decoded d;
    d.op = op == AtomOp::Add ? Op::Add : op == AtomOp::Min ? Op::Min : Op::Max;
    d.type = t;
    d.rnd = Round::Rn;
    // atom.add.f32 flushes subnormal inputs and results (PTX ISA, atom: "atom.add.f32 rounds to
    // nearest even and flushes subnormal inputs and results to sign-preserving zero").
    if (t == Type::F32 && op == AtomOp::Add) d.flags = kFtz;
    return arith(d, old, b, 0);
  }
  switch (op) {
    case AtomOp::Add:
      return (old + b) & m;
    case AtomOp::Min:
      return (s ? sext(old, w) < sext(b, w) : old < b) ? old : b;
    case AtomOp::Max:
      return (s ? sext(old, w) > sext(b, w) : old > b) ? old : b;
    case AtomOp::Inc:
      return old >= b ? 0 : (old + 1) & m;
    case AtomOp::Dec:
      return (old == 0 || old > b) ? b : old - 1;
    case AtomOp::And:
      return old & b;
    case AtomOp::Or:
      return old | b;
    case AtomOp::Xor:
      return old ^ b;
    case AtomOp::Exch:
      return b;
    case AtomOp::Cas:
      return old == b ? c : old;
    case AtomOp::None:
      break;
  }
  fault("not emulated yet", "an atomic without an operation");
}

}  // namespace tessel::emu::detail
