// ir.cpp: operand constructors and the minimum PTX ISA version and target of instructions, kernels
// and modules: each instruction's from its row of the instruction table (op_table.hpp) and from
// its operands, a kernel's also from its cluster dimensions and parameters.
#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/launch_plan.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_set>

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

void InstrOperands::free_heap() noexcept {
  operand_pool::deallocate(data_, cap_ * sizeof(Operand));
  data_ = inline_;
  cap_ = kInline;
}

void InstrOperands::assign_copies(const Operand* from, size_t n) {
  reserve(n);
  for (size_t j = 0; j < n; ++j) push_back(from[j]);
}

void InstrOperands::grow(size_t n) {
  if (n > UINT32_MAX / sizeof(Operand)) fail("codegen: an instruction with " + std::to_string(n) + " operands");
  auto* d = static_cast<Operand*>(operand_pool::allocate(n * sizeof(Operand)));
  for (uint32_t j = 0; j < size_; ++j) {
    new (d + j) Operand(std::move(data_[j]));
    data_[j].~Operand();
  }
  if (data_ != inline_) operand_pool::deallocate(data_, cap_ * sizeof(Operand));
  data_ = d;
  cap_ = static_cast<uint32_t>(n);
}

void InstrOperands::out_of_range(size_t j) const {
  fail("codegen: operand " + std::to_string(j) + " of an instruction with " + std::to_string(size_) + " operands");
}

OperandList::OperandList(std::initializer_list<Operand> l) {
  reserve(l.size());
  for (const Operand& o : l) push_back(o);
}

OperandList::OperandList(const OperandList& o) {
  reserve(o.size());
  for (const Operand& e : o) push_back(e);
}

OperandList& OperandList::operator=(const OperandList& o) {
  if (this != &o) *this = OperandList(o);
  return *this;
}

void OperandList::free_block() noexcept {
  Operand* d = data();
  for (uint32_t j = 0; j < h_->size; ++j) d[j].~Operand();
  operand_pool::deallocate(h_, sizeof(Header) + h_->cap * sizeof(Operand));
  h_ = nullptr;
}

void OperandList::grow(size_t n) {
  if (n > (UINT32_MAX - sizeof(Header)) / sizeof(Operand)) fail("codegen: an operand with " + std::to_string(n) + " elements");
  auto* h = static_cast<Header*>(operand_pool::allocate(sizeof(Header) + n * sizeof(Operand)));
  h->size = 0;
  h->cap = static_cast<uint32_t>(n);
  if (h_) {
    // Relocated bit by bit, as InstrOperands::take relocates its inline operands (an Operand's
    // bytes at a new address are the same operand); the old block is given back without
    // destroying them.
    h->size = h_->size;
    std::memcpy(static_cast<void*>(h + 1), static_cast<const void*>(h_ + 1), h_->size * sizeof(Operand));
    operand_pool::deallocate(h_, sizeof(Header) + h_->cap * sizeof(Operand));
  }
  h_ = h;
}

void OperandList::out_of_range(size_t j) const {
  throw std::out_of_range("codegen: operand element " + std::to_string(j) + " of " + std::to_string(size()));
}

Operand Operand::f32(float v) {
  Operand o;
  o.kind = Kind::FImm;
  o.type = Type::F32;
  uint32_t b;
  std::memcpy(&b, &v, 4);
  o.imm = b;
  return o;
}
Operand Operand::f64(double v) {
  Operand o;
  o.kind = Kind::FImm;
  o.type = Type::F64;
  std::memcpy(&o.imm, &v, 8);
  return o;
}
OperandName::OperandName(const std::string& name) {
  if (name.empty()) return;
  static std::mutex mutex;
  static auto* names = new std::unordered_set<std::string>;  // never destroyed: names outlive every Operand
  const std::lock_guard<std::mutex> lock(mutex);
  s_ = &*names->insert(name).first;  // a set's elements do not move
}

Operand Operand::special(std::string name) {
  Operand o;
  o.kind = Kind::Special;
  o.name = std::move(name);
  return o;
}
Operand Operand::symbol(std::string name) {
  Operand o;
  o.kind = Kind::Symbol;
  o.name = std::move(name);
  return o;
}
Operand Operand::vec(OperandList elems) {
  Operand o;
  o.kind = Kind::Vec;
  o.elems = std::move(elems);
  return o;
}
Operand Operand::label(std::string name) {
  Operand o;
  o.kind = Kind::Label;
  o.name = std::move(name);
  return o;
}
Operand Operand::pair(Operand a, Operand b) {
  Operand o;
  o.kind = Kind::Pair;
  o.elems.reserve(2);
  o.elems.push_back(std::move(a));
  o.elems.push_back(std::move(b));
  return o;
}

Operand Operand::sink() {
  Operand o;
  o.kind = Kind::Sink;
  return o;
}

namespace {

Requirement need(int ptx, int sm, const char* what, bool arch_specific = false) {
  return Requirement{ptx, sm, arch_specific, what};
}

}  // namespace

Requirement raise(Requirement a, const Requirement& b) {
  auto key = [](const Requirement& r) { return std::tuple(r.sm, r.arch_specific, r.ptx); };
  if (key(b) > key(a)) a.what = b.what;
  a.ptx = std::max(a.ptx, b.ptx);
  a.sm = std::max(a.sm, b.sm);
  a.arch_specific = a.arch_specific || b.arch_specific;
  return a;
}

Requirement operand_requirement(const Operand& o) {
  Requirement r;
  if (o.kind == Operand::Kind::Special && (o.name.str().rfind("%cluster", 0) == 0 || o.name.str().rfind("%ncluster", 0) == 0)) {
    r = raise(r, need(78, 90, "cluster special registers"));
  }
  if (o.kind == Operand::Kind::Sink) r = raise(r, need(78, 80, "the sink operand `_`"));
  return r;
}

Stmt::Stmt(const Stmt& o)
    : kind(o.kind),
      instr(o.instr),
      if_(o.if_ ? std::make_unique<IfStmt>(*o.if_) : nullptr),
      loop_(o.loop_ ? std::make_unique<LoopStmt>(*o.loop_) : nullptr) {}

Stmt& Stmt::operator=(const Stmt& o) {
  if (this != &o) *this = Stmt(o);
  return *this;
}

Requirement requirement(const Instr& i) {
  Requirement r = op_requirement(i);
  for (const Operand& o : i.ops) r = raise(r, operand_requirement(o));
  return r;
}

namespace {
void walk(const Block& b, Requirement& r) {
  for (const Stmt& s : b) {
    if (s.kind == Stmt::Kind::Instr) r = raise(r, requirement(s.instr));
    if (s.if_) {
      walk(s.if_->then_block, r);
      walk(s.if_->else_block, r);
    }
    if (s.loop_) {
      walk(s.loop_->cond_block, r);
      walk(s.loop_->body, r);
    }
  }
}
}  // namespace

Requirement kernel_floor(const Kernel& k) {
  Requirement r = k.min_target;
  if (k.cluster_dims) r = raise(r, need(78, 90, "cluster dimensions (.reqnctapercluster)"));
  for (const Param& p : k.params) {
    if (p.kind == Param::Kind::TensorMap) r = raise(r, need(80, 90, "a TMA descriptor parameter"));
  }
  return r;
}

Requirement requirement(const Kernel& k) {
  Requirement r = k.min_target;
  walk(k.body, r);
  return raise(r, kernel_floor(k));
}

Requirement requirement(const Module& m) {
  Requirement r;
  for (const Kernel& k : m.kernels) r = raise(r, requirement(k));
  return r;
}

std::string target_name(const Requirement& r) { return "sm_" + std::to_string(r.sm) + (r.arch_specific ? "a" : ""); }

const Kernel& LaunchPlan::entry() const {
  for (const Kernel& k : module.kernels) {
    if (k.name == kernel) return k;
  }
  std::string names;
  for (const Kernel& k : module.kernels) names += (names.empty() ? "" : ", ") + k.name;
  fail("launch plan: no kernel '" + kernel + "' in the module (it has: " + (names.empty() ? "none" : names) + ")");
}

}  // namespace tessel::codegen
