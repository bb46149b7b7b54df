// builder.cpp: KernelBuilder's core: registers, parameters, special registers, symbols, scopes
// and structured control flow. Arithmetic is in values.cpp, lowering of Ints in lower.cpp,
// memory and tensors in memory.cpp.
#include "tessel/codegen/builder.hpp"

#include <algorithm>
#include <utility>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

void Value::empty_value() { fail("codegen: use of an empty Value (it was never assigned a register)"); }

const char* ptx_name(Special s) {
  switch (s) {
    case Special::TidX:
      return "%tid.x";
    case Special::TidY:
      return "%tid.y";
    case Special::TidZ:
      return "%tid.z";
    case Special::NtidX:
      return "%ntid.x";
    case Special::NtidY:
      return "%ntid.y";
    case Special::NtidZ:
      return "%ntid.z";
    case Special::CtaidX:
      return "%ctaid.x";
    case Special::CtaidY:
      return "%ctaid.y";
    case Special::CtaidZ:
      return "%ctaid.z";
    case Special::NctaidX:
      return "%nctaid.x";
    case Special::NctaidY:
      return "%nctaid.y";
    case Special::NctaidZ:
      return "%nctaid.z";
    case Special::LaneId:
      return "%laneid";
    case Special::WarpId:
      return "%warpid";
    case Special::ClusterCtaRank:
      return "%cluster_ctarank";
    case Special::ClusterCtaidX:
      return "%cluster_ctaid.x";
    case Special::ClusterCtaidY:
      return "%cluster_ctaid.y";
    case Special::ClusterCtaidZ:
      return "%cluster_ctaid.z";
    case Special::ClusterIdX:
      return "%clusterid.x";
    case Special::ClusterIdY:
      return "%clusterid.y";
    case Special::ClusterIdZ:
      return "%clusterid.z";
    case Special::NclusterIdX:
      return "%nclusterid.x";
    case Special::SmId:
      return "%smid";
    case Special::DynamicSmemSize:
      return "%dynamic_smem_size";
  }
  return "";
}

KernelBuilder::KernelBuilder(std::string name) {
  if (name.empty()) fail("codegen: a kernel needs a name");
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$')) {
      fail("codegen: kernel name '" + name + "' has the character '" + std::string(1, c) +
           "' (PTX identifiers are letters, digits, '_' and '$')");
    }
  }
  k_.name = std::move(name);
  // Room for 8,192 registers from the start (12 bytes each; a GEMM has 2,000 to 7,000): growing
  // from empty copied them a dozen times, a fifth of fresh()'s cost, and from 1,024 still three.
  k_.regs.reserve(8192);
  blocks_.push_back(&k_.body);
  cse_.open();
  bound_.emplace_back();
}

Kernel KernelBuilder::finish() {
  if (finished_) fail("codegen: KernelBuilder::finish called twice for " + k_.name);
  if (blocks_.size() != 1) fail("codegen: finish inside a control-flow block of " + k_.name);
  finished_ = true;
  Block body = std::move(entry_);
  for (Stmt& s : k_.body) body.push_back(std::move(s));
  Instr r;
  r.op = Op::Ret;
  Stmt s;
  s.instr = r;
  body.push_back(std::move(s));
  k_.body = std::move(body);
  // A small kernel does not keep the room reserved for building (a GEMM's statements take
  // megabytes, so its room is kept rather than copied: copying cost 20M instructions of the
  // bench's 2.6 G).
  if (k_.regs.capacity() > 4 * k_.regs.size()) k_.regs.shrink_to_fit();
  return std::move(k_);
}

Value KernelBuilder::reg(Type t) { return fresh(t); }

void KernelBuilder::emit_after_finish() const { fail("codegen: emit after finish in " + k_.name); }

void KernelBuilder::take_note(Instr& i) {
  i.comment = note_;
  last_note_ = note_;
  note_changed_ = false;
}

void KernelBuilder::emit(Instr i, Value guard, bool guard_negated) {
  if (guard.valid()) {
    if (guard.type() != Type::Pred) fail(std::string("codegen: a guard must be a pred, got ") + ptx_name(guard.type()));
    i.guard = guard.id();
    i.guard_negated = guard_negated;
  }
  Instr& slot = append();
  if (!slot.comment.empty()) i.comment = slot.comment;  // the note, which append() took
  slot = std::move(i);
}

void KernelBuilder::note(std::string text) {
  note_ = std::move(text);
  note_changed_ = note_ != last_note_;
}

// --- Parameters ---------------------------------------------------------------------------------

void KernelBuilder::declare(Param p) {
  for (const Param& q : k_.params) {
    if (q.name == p.name) fail("codegen: parameter '" + p.name + "' declared twice in " + k_.name);
  }
  k_.params.push_back(std::move(p));
}

void KernelBuilder::in_entry(const std::function<void()>& fn) {
  emit_to_entry_ = true;
  try {
    fn();
  } catch (...) {
    emit_to_entry_ = false;
    throw;
  }
  emit_to_entry_ = false;
}

Value KernelBuilder::load_param(const std::string& name, Type t) {
  Value v = fresh(t);
  Instr i;
  i.op = Op::Ld;
  i.space = Space::Param;
  i.type = t;
  i.set_ops(v.op(), Operand::addr(Operand::symbol(name)));
  in_entry([&] { emit(std::move(i)); });
  return v;
}

Value KernelBuilder::param(const std::string& name, Type t) {
  if (t == Type::Pred || t == Type::None)
    fail(std::string("codegen: parameter '") + name + "' cannot have type " + ptx_name(t));
  declare(Param{Param::Kind::Scalar, name, t});
  return load_param(name, t);
}

Value KernelBuilder::global_pointer_param(const std::string& name) {
  declare(Param{Param::Kind::Pointer, name, Type::U64});
  Value raw = load_param(name, Type::U64), g;
  in_entry([&] { g = cvta_to_global(raw); });
  return g;
}

Value KernelBuilder::tensor_map_param(const std::string& name) {
  declare(Param{Param::Kind::TensorMap, name, Type::B8});
  // The descriptor stays in the parameter space (a __grid_constant__ parameter); TMA takes its
  // generic address (PTX ISA, cp.async.bulk.tensor: "tensorMap ... in .param space").
  Value g;
  in_entry([&] {
    Value p = address_of(name);
    g = fresh(Type::U64);
    Instr cv;
    cv.op = Op::Cvta;
    cv.space = Space::Param;
    cv.type = Type::U64;
    cv.flags = kToGeneric;
    cv.add_reg(g.id());
    cv.add_reg(p.id());
    emit(std::move(cv));
  });
  return g;
}

// --- Registers, constants, specials -------------------------------------------------------------

Value KernelBuilder::constant(int64_t v, Type t) {
  Value r = fresh(t);
  assign(r, v);
  return r;
}

Value KernelBuilder::constant_f32(float v) {
  Value r = fresh(Type::F32);
  Instr i;
  i.op = Op::Mov;
  i.type = Type::F32;
  i.set_ops(r.op(), Operand::f32(v));
  emit(std::move(i));
  return r;
}

Value KernelBuilder::constant_f64(double v) {
  Value r = fresh(Type::F64);
  Instr i;
  i.op = Op::Mov;
  i.type = Type::F64;
  i.set_ops(r.op(), Operand::f64(v));
  emit(std::move(i));
  return r;
}

Value KernelBuilder::mov(Value v) {
  Value r = fresh(v.type());
  assign(r, v);
  return r;
}

void KernelBuilder::assign(Value dst, Value src) {
  if (reg_class(dst.type()) != reg_class(src.type())) {
    fail(std::string("codegen: assign of a ") + ptx_name(src.type()) + " to a " + ptx_name(dst.type()) + " register");
  }
  Instr& i = append();
  i.op = Op::Mov;
  i.type = dst.type() == Type::Pred ? Type::Pred : bits_type(bits(dst.type()) < 16 ? 16 : bits(dst.type()));
  if (dst.type() == Type::F32 || dst.type() == Type::F64) i.type = dst.type();
  i.add_reg(dst.id());
  i.add_reg(src.id());
}

void KernelBuilder::assign(Value dst, int64_t imm) {
  if (dst.type() == Type::Pred) fail("codegen: assign an integer to a pred register (use a comparison)");
  if (is_float(dst.type()))
    fail(std::string("codegen: assign an integer immediate to a ") + ptx_name(dst.type()) + " register");
  Instr& i = append();
  i.op = Op::Mov;
  i.type = dst.type();
  if (reg_class(dst.type()) == RegClass::B16) i.type = bits_type(16);
  i.add_reg(dst.id());
  i.add_imm(imm);
}

Value KernelBuilder::special(Special s) {
  auto it = specials_.find(static_cast<int>(s));
  if (it != specials_.end()) return it->second;
  Value r = fresh(Type::U32);
  Instr i;
  i.op = Op::Mov;
  i.type = Type::U32;
  i.set_ops(r.op(), Operand::special(ptx_name(s)));
  in_entry([&] { emit(std::move(i)); });
  specials_[static_cast<int>(s)] = r;
  return r;
}

// --- Symbols ------------------------------------------------------------------------------------

Int KernelBuilder::symbol(const std::string& name, Value v, int64_t divisibility, int64_t lower_bound) {
  Int s = Int::symbol(name, divisibility, lower_bound);
  bind(s, v);
  return s;
}

void KernelBuilder::bind(const Int& symbol, Value v) {
  if (!symbol.is_dynamic() || symbol.expr()->op != tessel::ExprOp::Symbol) {
    fail("codegen: bind needs a symbol, got " + expr_string(symbol));
  }
  if (!is_integer(v.type()))
    fail("codegen: symbol " + symbol.expr()->name + " bound to a " + ptx_name(v.type()) + " value (integers only)");
  const std::string& name = symbol.expr()->name;
  for (const auto& scope : bound_) {
    if (scope.count(name)) fail("codegen: symbol " + name + " is already bound in this scope");
  }
  bound_.back()[name] = v;
}

Int KernelBuilder::thread_index(int dim) {
  static const Special s[] = {Special::TidX, Special::TidY, Special::TidZ};
  static const char* n[] = {"tid.x", "tid.y", "tid.z"};
  if (dim < 0 || dim > 2) fail("codegen: thread_index dimension " + std::to_string(dim) + " (0, 1 or 2)");
  for (const auto& scope : bound_) {
    auto it = scope.find(n[dim]);
    if (it != scope.end()) return index_symbols_.at(n[dim]);
  }
  Int x = symbol(n[dim], special(s[dim]));
  index_symbols_[n[dim]] = x;
  return x;
}

Int KernelBuilder::block_index(int dim) {
  static const Special s[] = {Special::CtaidX, Special::CtaidY, Special::CtaidZ};
  static const char* n[] = {"ctaid.x", "ctaid.y", "ctaid.z"};
  if (dim < 0 || dim > 2) fail("codegen: block_index dimension " + std::to_string(dim) + " (0, 1 or 2)");
  for (const auto& scope : bound_) {
    if (scope.count(n[dim])) return index_symbols_.at(n[dim]);
  }
  Int x = symbol(n[dim], special(s[dim]));
  index_symbols_[n[dim]] = x;
  return x;
}

// --- Scopes and control flow --------------------------------------------------------------------

void KernelBuilder::push_scope() {
  cse_.open();
  bound_.emplace_back();
}

void KernelBuilder::pop_scope() {
  cse_.close();
  bound_.pop_back();
}

// A full block grows 4x, not 2x: each growth moves every statement (208 bytes), and a block that
// outgrows its first 32 (an epilogue box's C loads, a loop body) moved each statement about once.
void KernelBuilder::grow(Block& b) { b.reserve(std::max<size_t>(32, 4 * b.capacity())); }

void KernelBuilder::in_block(Block& b, FunctionRef<void()> fn) {
  // Room for 32 statements from the start: an epilogue's element-wise `if` bodies hold 15-20, and
  // growing them from 8 reallocated and moved each twice (2% of generation). A block is at most
  // about 3 KB of unused room while its kernel is built.
  if (b.empty()) b.reserve(32);
  blocks_.push_back(&b);
  push_scope();
  try {
    fn();
  } catch (...) {
    pop_scope();
    blocks_.pop_back();
    throw;
  }
  pop_scope();
  blocks_.pop_back();
}

void KernelBuilder::if_(Value pred, FunctionRef<void()> then_fn, FunctionRef<void()> else_fn) {
  if (pred.type() != Type::Pred) fail(std::string("codegen: if_ needs a pred, got ") + ptx_name(pred.type()));
  auto f = std::make_unique<IfStmt>();
  f->pred = pred.id();
  in_block(f->then_block, then_fn);
  if (else_fn) in_block(f->else_block, else_fn);
  // Made in place at the end of the block, as append() makes an instruction (a statement made
  // aside and moved in copied its 208 bytes once more).
  Block& b = current();
  if (b.size() == b.capacity()) grow(b);
  Stmt& s = b.emplace_back();
  s.kind = Stmt::Kind::If;
  s.if_ = std::move(f);
}

void KernelBuilder::while_(FunctionRef<Value()> cond, FunctionRef<void()> body) {
  auto l = std::make_unique<LoopStmt>();
  Value c;
  // The condition's scope is the loop's: what it computes is recomputed before each trip.
  in_block(l->cond_block, [&] { c = cond(); });
  if (!c.valid() || c.type() != Type::Pred) fail("codegen: while_ condition must return a pred");
  l->cond = c.id();
  in_block(l->body, body);
  Block& b = current();  // the statement made in place, as if_'s
  if (b.size() == b.capacity()) grow(b);
  Stmt& s = b.emplace_back();
  s.kind = Stmt::Kind::Loop;
  s.loop_ = std::move(l);
}

void KernelBuilder::for_range(Value begin, Value end, int64_t step, const std::function<void(Value)>& body) {
  if (step <= 0) fail("codegen: for_range step must be positive, got " + std::to_string(step));
  if (!is_integer(begin.type()) || begin.type() != end.type()) {
    fail(std::string("codegen: for_range bounds must be integers of one type, got ") + ptx_name(begin.type()) +
         " and " + ptx_name(end.type()));
  }
  Value i = mov(begin);
  while_([&] { return compare(Cmp::Lt, i, end); },
         [&] {
           body(i);
           Instr add;
           add.op = Op::Add;
           add.type = i.type();
           add.add_reg(i.id());
           add.add_reg(i.id());
           add.add_imm(step);
           emit(std::move(add));
         });
}

void KernelBuilder::unrolled(int n, const std::function<void(int)>& body) {
  for (int i = 0; i < n; ++i) body(i);
}

void KernelBuilder::ret() {
  Instr i;
  i.op = Op::Ret;
  emit(std::move(i));
}

// --- Shared memory ------------------------------------------------------------------------------

Value KernelBuilder::address_of(const std::string& symbol) {
  bool shared = false;
  for (const SharedAlloc& a : k_.shared) shared = shared || a.name == symbol;
  Value r = fresh(shared ? Type::U32 : Type::U64);
  Instr i;
  i.op = Op::Mov;
  i.type = r.type();
  i.set_ops(r.op(), Operand::symbol(symbol));
  emit(std::move(i));
  return r;
}

Value KernelBuilder::shared_array(const std::string& name, int64_t bytes, int align) {
  if (bytes <= 0) fail("codegen: shared array '" + name + "' needs a positive size, got " + std::to_string(bytes));
  if (align <= 0 || (align & (align - 1)))
    fail("codegen: shared array '" + name + "' alignment must be a power of two, got " + std::to_string(align));
  for (const SharedAlloc& a : k_.shared) {
    if (a.name == name) fail("codegen: shared array '" + name + "' declared twice");
  }
  k_.shared.push_back(SharedAlloc{name, bytes, align, false});
  Value v;
  in_entry([&] { v = address_of(name); });
  return v;
}

Value KernelBuilder::dynamic_shared(const std::string& name, int align) {
  for (const SharedAlloc& a : k_.shared) {
    if (a.dynamic) fail("codegen: a kernel has one dynamic shared array ('" + a.name + "' exists)");
  }
  if (align <= 0 || (align & (align - 1)))
    fail("codegen: dynamic shared alignment must be a power of two, got " + std::to_string(align));
  k_.shared.push_back(SharedAlloc{name, 0, align, true});
  Value v;
  in_entry([&] { v = address_of(name); });
  return v;
}

}  // namespace tessel::codegen
