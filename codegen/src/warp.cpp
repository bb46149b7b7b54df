// warp.cpp: ldmatrix, stmatrix and mma.sync (see warp.hpp for the fragment layouts and rules).
#include "tessel/codegen/warp.hpp"

#include <string>
#include <utility>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

namespace {

void check_shared(const char* fn, Value v) {
  const Type t = v.type();
  if (t != Type::U32 && t != Type::B32 && t != Type::U64 && t != Type::B64) {
    fail(std::string(fn) + ": the address is a " + ptx_name(t) + " value (a shared address is u32 or u64)");
  }
}

void check_count(const char* fn, size_t n) {
  if (n != 1 && n != 2 && n != 4) fail(std::string(fn) + ": " + std::to_string(n) + " matrices is not 1, 2 or 4");
}

// A register of the b32 class: b32, u32, s32, f16x2, bf16x2 (not f32, which PTX keeps apart).
void check_b32(const char* fn, const char* what, size_t k, Value v) {
  if (reg_class(v.type()) != RegClass::B32 || bits(v.type()) != 32) {
    fail(std::string(fn) + ": " + what + " register " + std::to_string(k) + " is a " + ptx_name(v.type()) +
         " value (a 32-bit register: b32, u32, s32, f16x2 or bf16x2)");
  }
}

Operand vec(const std::vector<Value>& v) {
  OperandList ops;
  for (const Value& x : v) ops.push_back(x.op());
  return Operand::vec(std::move(ops));
}

}  // namespace

std::vector<Value> ldmatrix(KernelBuilder& b, Value smem_addr, int num, bool trans) {
  check_shared("ldmatrix", smem_addr);
  if (num != 1 && num != 2 && num != 4) fail("ldmatrix: " + std::to_string(num) + " matrices is not 1, 2 or 4");
  std::vector<Value> r;
  for (int j = 0; j < num; ++j) r.push_back(b.reg(Type::B32));
  Instr i;
  i.op = Op::Ldmatrix;
  i.type = Type::B16;
  i.space = Space::Shared;
  i.n = num;
  if (trans) i.flags |= kTrans;
  i.set_ops(vec(r), Operand::addr(smem_addr.op()));
  b.emit(std::move(i));
  return r;
}

void stmatrix(KernelBuilder& b, Value smem_addr, const std::vector<Value>& frags, bool trans) {
  check_shared("stmatrix", smem_addr);
  check_count("stmatrix", frags.size());
  for (size_t k = 0; k < frags.size(); ++k) check_b32("stmatrix", "fragment", k, frags[k]);
  Instr i;
  i.op = Op::Stmatrix;
  i.type = Type::B16;
  i.space = Space::Shared;
  i.n = static_cast<int32_t>(frags.size());
  if (trans) i.flags |= kTrans;
  i.set_ops(Operand::addr(smem_addr.op()), vec(frags));
  b.emit(std::move(i));
}

namespace {

void check_count(const char* what, const std::vector<Value>& v, size_t n) {
  if (v.size() != n) {
    fail(std::string("mma_sync: ") + what + " has " + std::to_string(v.size()) + " registers, not " +
         std::to_string(n));
  }
}

void check_f32(const char* what, const std::vector<Value>& v) {
  for (size_t k = 0; k < v.size(); ++k) {
    if (v[k].type() != Type::F32) {
      fail(std::string("mma_sync: ") + what + " register " + std::to_string(k) + " is a " + ptx_name(v[k].type()) +
           " value (f32)");
    }
  }
}

// The operands of both overloads: A/B type, then A, B and C.
void check_mma_inputs(Type ab, const std::vector<Value>& a, const std::vector<Value>& bm, const std::vector<Value>& c) {
  if (ab != Type::F16 && ab != Type::BF16 && ab != Type::TF32) {
    fail(std::string("mma_sync: A/B type ") + ptx_name(ab) + " is not f16, bf16 or tf32");
  }
  check_count("A", a, 4);
  check_count("B", bm, 2);
  check_count("C", c, 4);
  for (size_t k = 0; k < a.size(); ++k) check_b32("mma_sync", "A", k, a[k]);
  for (size_t k = 0; k < bm.size(); ++k) check_b32("mma_sync", "B", k, bm[k]);
  check_f32("C", c);
}

void emit_mma(KernelBuilder& b, Type ab, const std::vector<Value>& d, const std::vector<Value>& a,
              const std::vector<Value>& bm, const std::vector<Value>& c) {
  Instr i;
  i.op = Op::MmaSync;
  i.type = Type::F32;   // D
  i.type2 = ab;         // A (the shape's K follows from it)
  i.type3 = ab;         // B
  i.type4 = Type::F32;  // C
  i.set_ops(vec(d), vec(a), vec(bm), vec(c));
  b.emit(std::move(i));
}

}  // namespace

void mma_sync(KernelBuilder& b, Type ab, const std::vector<Value>& d, const std::vector<Value>& a,
              const std::vector<Value>& bm, const std::vector<Value>& c) {
  check_mma_inputs(ab, a, bm, c);
  check_count("D", d, 4);
  check_f32("D", d);
  emit_mma(b, ab, d, a, bm, c);
}

std::vector<Value> mma_sync(KernelBuilder& b, Type ab, const std::vector<Value>& a, const std::vector<Value>& bm,
                            const std::vector<Value>& c) {
  check_mma_inputs(ab, a, bm, c);
  std::vector<Value> d;
  for (int k = 0; k < 4; ++k) d.push_back(b.reg(Type::F32));
  emit_mma(b, ab, d, a, bm, c);
  return d;
}

}  // namespace tessel::codegen
