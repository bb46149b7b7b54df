// async_copy.cpp: cp.async with its async-groups (sm_80) and the TMA bulk tensor copies with their
// bulk async-groups (sm_90); see async_copy.hpp for the rules.
#include "tessel/codegen/async_copy.hpp"

#include <string>
#include <utility>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::codegen {

namespace {

Instr make(Op op) {
  Instr i;
  i.op = op;
  return i;
}

bool is_int32(Type t) { return t == Type::U32 || t == Type::S32 || t == Type::B32; }

void check_shared(const char* fn, const char* what, Value v) {
  const Type t = v.type();
  if (t != Type::U32 && t != Type::B32 && t != Type::U64 && t != Type::B64) {
    fail(std::string(fn) + ": " + what + " is a " + ptx_name(t) + " value (a shared address is u32 or u64)");
  }
}

void check_64(const char* fn, const char* what, Value v) {
  const Type t = v.type();
  if (t != Type::U64 && t != Type::B64 && t != Type::S64) {
    fail(std::string(fn) + ": " + what + " is a " + ptx_name(t) + " value (a 64-bit address)");
  }
}

void check_count(const char* fn, int n) {
  if (n < 0) fail(std::string(fn) + ": group count " + std::to_string(n) + " is negative");
}

// [tensor_map, {c0, ..., cN-1}], checking the rank and the coordinates' types.
Operand tensor_operand(const char* fn, Value tensor_map, const std::vector<Value>& coords) {
  check_64(fn, "the tensor map", tensor_map);
  if (coords.empty() || coords.size() > 5) {
    fail(std::string(fn) + ": " + std::to_string(coords.size()) + " coordinates is not a tensor rank in [1, 5]");
  }
  OperandList c;
  for (size_t k = 0; k < coords.size(); ++k) {
    if (!is_int32(coords[k].type())) {
      fail(std::string(fn) + ": coordinate " + std::to_string(k) + " is a " + ptx_name(coords[k].type()) +
           " value (coordinates are 32-bit integers, .s32)");
    }
    c.push_back(coords[k].op());
  }
  Operand t = Operand::addr(tensor_map.op());
  t.elems.push_back(Operand::vec(std::move(c)));
  return t;
}

}  // namespace

// --- cp.async -----------------------------------------------------------------------------------

void cp_async(KernelBuilder& b, Value smem_dst, Value gmem_src, int bytes, Cache cache, std::optional<Value> src_size) {
  if (cache == Cache::Ca) {
    if (bytes != 4 && bytes != 8 && bytes != 16)
      fail("cp_async: .ca copies 4, 8 or 16 bytes, not " + std::to_string(bytes));
  } else if (cache == Cache::Cg) {
    if (bytes != 16) fail("cp_async: .cg copies 16 bytes, not " + std::to_string(bytes));
  } else {
    fail(std::string("cp_async: cache operator ") + (cache == Cache::None ? "(none)" : ptx_suffix(cache)) +
         " is not .ca or .cg");
  }
  check_shared("cp_async", "the destination", smem_dst);
  check_64("cp_async", "the source", gmem_src);
  Instr i = make(Op::CpAsync);
  i.cache = cache;
  i.set_ops(Operand::addr(smem_dst.op()), Operand::addr(gmem_src.op()), Operand::i(bytes));
  if (src_size) {
    if (!is_int32(src_size->type())) {
      fail(std::string("cp_async: the source size is a ") + ptx_name(src_size->type()) + " value (a 32-bit integer)");
    }
    i.ops.push_back(src_size->op());
  }
  b.emit(std::move(i));
}

void cp_async_commit_group(KernelBuilder& b) { b.emit(make(Op::CpAsyncCommit)); }

void cp_async_wait_group(KernelBuilder& b, int n) {
  check_count("cp_async_wait_group", n);
  Instr i = make(Op::CpAsyncWait);
  i.n = n;
  i.set_ops(Operand::i(n));
  b.emit(std::move(i));
}

void cp_async_mbarrier_arrive(KernelBuilder& b, Value mbar, bool noinc) {
  check_shared("cp_async_mbarrier_arrive", "the mbarrier address", mbar);
  Instr i = make(Op::CpAsyncMbarArrive);
  if (noinc) i.flags |= kNoinc;
  i.set_ops(Operand::addr(mbar.op()));
  b.emit(std::move(i));
}

void cp_async_wait_all(KernelBuilder& b) {
  Instr i = make(Op::CpAsyncWait);
  i.n = -1;  // the mnemonic's wait_all form
  b.emit(std::move(i));
}

// --- cp.async.bulk.tensor -----------------------------------------------------------------------

void tma_load(KernelBuilder& b, Value smem_dst, Value tensor_map, const std::vector<Value>& coords, Value mbar,
              std::optional<Value> cta_mask) {
  check_shared("tma_load", "the destination", smem_dst);
  Operand tensor = tensor_operand("tma_load", tensor_map, coords);
  check_shared("tma_load", "the mbarrier address", mbar);
  Instr i = make(Op::TmaLoad);
  i.n = static_cast<int32_t>(coords.size());
  i.set_ops(Operand::addr(smem_dst.op()), std::move(tensor), Operand::addr(mbar.op()));
  if (cta_mask) {
    const Type t = cta_mask->type();
    if (t != Type::U16 && t != Type::B16 && t != Type::S16) {
      fail(std::string("tma_load: the CTA mask is a ") + ptx_name(t) + " value (it is 16 bits: u16 or b16)");
    }
    i.flags |= kMulticast;
    i.ops.push_back(cta_mask->op());
  }
  b.emit(std::move(i));
}

void tma_store(KernelBuilder& b, Value tensor_map, const std::vector<Value>& coords, Value smem_src) {
  Operand tensor = tensor_operand("tma_store", tensor_map, coords);
  check_shared("tma_store", "the source", smem_src);
  Instr i = make(Op::TmaStore);
  i.n = static_cast<int32_t>(coords.size());
  i.set_ops(std::move(tensor), Operand::addr(smem_src.op()));
  b.emit(std::move(i));
}

void tma_prefetch(KernelBuilder& b, Value tensor_map, const std::vector<Value>& coords) {
  Operand tensor = tensor_operand("tma_prefetch", tensor_map, coords);
  Instr i = make(Op::TmaPrefetch);
  i.n = static_cast<int32_t>(coords.size());
  i.set_ops(std::move(tensor));
  b.emit(std::move(i));
}

void cp_async_bulk_commit_group(KernelBuilder& b) { b.emit(make(Op::BulkCommit)); }

void cp_async_bulk_wait_group(KernelBuilder& b, int n, bool read) {
  check_count("cp_async_bulk_wait_group", n);
  Instr i = make(Op::BulkWait);
  if (read) i.flags |= kRead;
  i.n = n;
  i.set_ops(Operand::i(n));
  b.emit(std::move(i));
}

}  // namespace tessel::codegen
