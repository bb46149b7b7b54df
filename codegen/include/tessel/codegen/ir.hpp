// ir.hpp: tessel's kernel IR: a module of kernels made of parameters, typed virtual registers,
// shared-memory allocations and a body of instructions in structured control flow.
//
// Three stages never go backwards: the builder (builder.hpp) makes this IR, legalize
// (legalize.hpp) checks it and flattens control flow to labels and branches, and the printer
// (ptx.hpp) writes PTX text from tables, making no choices.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessel/codegen/block_pool.hpp"
#include "tessel/codegen/op_table.hpp"
#include "tessel/codegen/operand_pool.hpp"
#include "tessel/codegen/types.hpp"

namespace tessel::codegen {

// `Op`, the instruction roots, and each one's facts (mnemonic root, operand signature, minimum
// PTX ISA and target, emulator class) are the rows of op_table.hpp.

enum class Cmp : uint8_t { None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs };
enum class Round : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };
enum class Cache : uint8_t { None, Ca, Cg, Cs, Lu, Cv, Wb, Wt };
enum class AtomOp : uint8_t { None, Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };

// Modifier flags of Instr::flags.
enum Flag : uint32_t {
  kLo = 1u << 0,           // mul/mad .lo
  kHi = 1u << 1,           // mul/mad .hi
  kWide = 1u << 2,         // mul/mad .wide
  kApprox = 1u << 3,       // div.approx
  kFtz = 1u << 4,          // .ftz
  kSat = 1u << 5,          // .sat
  kNc = 1u << 6,           // ld.global.nc (read-only path)
  kToGeneric = 1u << 7,    // cvta from a space to generic (else to the space)
  kTrans = 1u << 8,        // ldmatrix/stmatrix .trans
  kMulticast = 1u << 9,    // cp.async.bulk.tensor .multicast::cluster
  kUni = 1u << 10,         // bra.uni
  kNoAllocL1 = 1u << 11,   // ld/st .L1::no_allocate
  kL2Prefetch = 1u << 12,  // ld .L2::128B
  kRead = 1u << 13,        // cp.async.bulk.wait_group.read
  kInc = 1u << 14,         // setmaxnreg .inc (else .dec)
  kRelease = 1u << 15,     // .release semantics
  kCluster = 1u << 16,     // .cluster scope
  kAcquire = 1u << 17,     // .acquire semantics
  kRegA = 1u << 18,        // wgmma with A in registers
  kAligned = 1u << 19,     // barrier .aligned forms
  kNoinc = 1u << 20,       // cp.async.mbarrier.arrive .noinc
  kRelaxed = 1u << 21,     // .relaxed semantics (barrier.cluster.arrive)
};

// The name of an operand (a special register, a parameter or shared array, a label), or an
// instruction's comment, interned:
// one string per distinct name for the process, so that an Operand copies, moves and is destroyed
// without touching a string (the builder makes several per instruction). Names are few (labels
// repeat across kernels), so the table stays small.
class OperandName {
 public:
  OperandName() = default;
  OperandName(const std::string& name);  // NOLINT(google-explicit-constructor): a name is its string
  OperandName(const char* name) : OperandName(std::string(name)) {}  // NOLINT(google-explicit-constructor)
  const std::string& str() const { return *s_; }
  operator const std::string&() const { return *s_; }  // NOLINT(google-explicit-constructor)
  bool empty() const { return s_->empty(); }
  friend bool operator==(const OperandName& a, const OperandName& b) { return a.s_ == b.s_; }
  friend bool operator==(const OperandName& a, const std::string& b) { return *a.s_ == b; }
  friend bool operator==(const OperandName& a, const char* b) { return *a.s_ == b; }
  friend std::string operator+(const std::string& a, const OperandName& b) { return a + *b.s_; }
  friend std::string operator+(const OperandName& a, const std::string& b) { return *a.s_ + b; }
  friend std::string operator+(const char* a, const OperandName& b) { return a + *b.s_; }
  friend std::string operator+(const OperandName& a, const char* b) { return *a.s_ + b; }

 private:
  static const std::string kNone;    // the empty name (constant-initialized: no guard to read it)
  const std::string* s_ = &kNone;
};
inline const std::string OperandName::kNone;

struct Operand;
// The elements of a vector, address or pair operand (Operand::elems): one pointer to a block from
// operand_pool.hpp that holds the count, the room and the operands (none for an operand without
// elements, most of them). A std::vector was three pointers in every operand: with one, an
// Operand is 32 bytes, not 48, and a statement (four operands inline) 208, not 272, for every
// statement the builder writes and every block's growth moves. It has the part of std::vector's
// interface that the IR's readers and writers use (size, [], at, iteration, push_back, reserve).
class OperandList {
 public:
  using value_type = Operand;
  using iterator = Operand*;
  using const_iterator = const Operand*;

  OperandList() noexcept = default;
  OperandList(std::initializer_list<Operand> l);
  OperandList(const OperandList& o);
  OperandList(OperandList&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  OperandList& operator=(const OperandList& o);
  OperandList& operator=(OperandList&& o) noexcept {
    if (this != &o) {
      release();
      h_ = o.h_;
      o.h_ = nullptr;
    }
    return *this;
  }
  ~OperandList() { release(); }

  size_t size() const { return h_ ? h_->size : 0; }
  bool empty() const { return size() == 0; }
  // Defined below Operand, which is incomplete here.
  inline Operand* data();
  inline const Operand* data() const;
  inline iterator begin();
  inline iterator end();
  inline const_iterator begin() const;
  inline const_iterator end() const;
  inline Operand& operator[](size_t j);
  inline const Operand& operator[](size_t j) const;
  inline Operand& at(size_t j);
  inline const Operand& at(size_t j) const;
  inline Operand& front();
  inline Operand& back();
  inline const Operand& front() const;
  inline const Operand& back() const;
  inline void push_back(Operand&& o);
  inline void push_back(const Operand& o);
  void reserve(size_t n) {
    if (n > (h_ ? h_->cap : 0)) grow(n);
  }

 private:
  // The block: this header, then `cap` operands (8 bytes, an operand's alignment).
  struct Header {
    uint32_t size;
    uint32_t cap;
  };
  void release() noexcept {  // destroys the operands and gives back the block
    if (h_) free_block();
  }
  void free_block() noexcept;
  void grow(size_t n);  // room for n operands, those held moved over
  [[noreturn]] void out_of_range(size_t j) const;
  Header* h_ = nullptr;
};

// An instruction operand.
struct Operand {
  enum class Kind : uint8_t { None, Reg, Imm, FImm, Special, Symbol, Addr, Vec, Label, Sink, Pair };
  Kind kind = Kind::None;
  Type type = Type::None;  // FImm: f32 or f64
  int reg = -1;            // Reg: register id
  int64_t imm = 0;         // Imm: the value; Addr: the byte offset; FImm: the bit pattern
  OperandName name;        // Special (`%tid.x`), Symbol (parameter or shared array), Label
  OperandList elems;       // Vec: the elements; Addr: the base (and tensor coordinates); Pair: a, b

  static Operand r(int id) {
    Operand o;
    o.kind = Kind::Reg;
    o.reg = id;
    return o;
  }
  static Operand i(int64_t v) {
    Operand o;
    o.kind = Kind::Imm;
    o.imm = v;
    return o;
  }
  static Operand f32(float v);
  static Operand f64(double v);
  static Operand special(std::string name);
  static Operand symbol(std::string name);
  static Operand addr(Operand base, int64_t offset = 0) {
    Operand o;
    o.kind = Kind::Addr;
    o.imm = offset;
    o.elems.reserve(1);
    o.elems.push_back(std::move(base));
    return o;
  }
  static Operand vec(OperandList elems);
  static Operand label(std::string name);
  static Operand sink();                      // `_`
  static Operand pair(Operand a, Operand b);  // `a|b`: two destinations (elect.sync, setp)
};

static_assert(sizeof(Operand) == 32, "an Operand is 32 bytes: its element list is one pointer (OperandList)");

inline Operand* OperandList::data() { return h_ ? reinterpret_cast<Operand*>(h_ + 1) : nullptr; }
inline const Operand* OperandList::data() const { return h_ ? reinterpret_cast<const Operand*>(h_ + 1) : nullptr; }
inline OperandList::iterator OperandList::begin() { return data(); }
inline OperandList::iterator OperandList::end() { return data() + size(); }
inline OperandList::const_iterator OperandList::begin() const { return data(); }
inline OperandList::const_iterator OperandList::end() const { return data() + size(); }
inline Operand& OperandList::operator[](size_t j) { return data()[j]; }
inline const Operand& OperandList::operator[](size_t j) const { return data()[j]; }
inline Operand& OperandList::at(size_t j) {
  if (j >= size()) out_of_range(j);
  return data()[j];
}
inline const Operand& OperandList::at(size_t j) const {
  if (j >= size()) out_of_range(j);
  return data()[j];
}
inline Operand& OperandList::front() { return data()[0]; }
inline Operand& OperandList::back() { return data()[size() - 1]; }
inline const Operand& OperandList::front() const { return data()[0]; }
inline const Operand& OperandList::back() const { return data()[size() - 1]; }
inline void OperandList::push_back(Operand&& o) {
  const size_t n = size();
  if (!h_ || n == h_->cap) grow(n ? 2 * n : 2);
  new (data() + n) Operand(std::move(o));
  ++h_->size;
}
inline void OperandList::push_back(const Operand& o) { push_back(Operand(o)); }

// An instruction's operands: up to kInline of them inside the instruction, more in an array from
// operand_pool.hpp. A std::vector per instruction cost an allocation from the pool for every
// instruction the builder made (its free lists, walked in the order the last kernel released
// them, missed the cache: the pool's allocate was a fifteenth of the bench's wall time), and the
// printer and legalize chased its pointer for every instruction they read. It has the part of
// std::vector's interface that the IR's readers use (size, [], at, iteration, push_back).
class InstrOperands {
 public:
  static constexpr uint32_t kInline = 4;  // binary, compare and selp have 3 or 4; mad 4
  using value_type = Operand;
  using iterator = Operand*;
  using const_iterator = const Operand*;

  InstrOperands() noexcept {}
  InstrOperands(std::initializer_list<Operand> l) { assign_copies(l.begin(), l.size()); }
  InstrOperands(const InstrOperands& o) { assign_copies(o.data(), o.size_); }
  InstrOperands(InstrOperands&& o) noexcept { take(o); }
  InstrOperands& operator=(const InstrOperands& o) {
    if (this != &o) {
      clear();
      assign_copies(o.data(), o.size_);
    }
    return *this;
  }
  InstrOperands& operator=(InstrOperands&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  InstrOperands& operator=(std::initializer_list<Operand> l) {
    clear();
    assign_copies(l.begin(), l.size());
    return *this;
  }
  ~InstrOperands() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Operand* data() { return data_; }
  const Operand* data() const { return data_; }
  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  Operand& operator[](size_t j) { return data_[j]; }
  const Operand& operator[](size_t j) const { return data_[j]; }
  Operand& at(size_t j) {
    if (j >= size_) out_of_range(j);
    return data()[j];
  }
  const Operand& at(size_t j) const {
    if (j >= size_) out_of_range(j);
    return data()[j];
  }
  Operand& front() { return data()[0]; }
  Operand& back() { return data()[size_ - 1]; }
  const Operand& front() const { return data()[0]; }
  const Operand& back() const { return data()[size_ - 1]; }

  void push_back(Operand&& o) {
    if (size_ == cap_) grow(2 * cap_);
    new (data_ + size_) Operand(std::move(o));
    ++size_;
  }
  void push_back(const Operand& o) { push_back(Operand(o)); }
  // A default operand made in place at the end, for the caller to fill.
  Operand& emplace_back() {
    if (size_ == cap_) grow(2 * cap_);
    return *new (data_ + size_++) Operand();
  }
  void reserve(size_t n) {
    if (n > cap_) grow(n);
  }
  void clear() noexcept {  // keeps the room
    for (uint32_t j = 0; j < size_; ++j) data_[j].~Operand();
    size_ = 0;
  }

 private:
  void assign_copies(const Operand* from, size_t n);
  // o's operands moved here (this holds none, in its own room); o left empty.
  void take(InstrOperands& o) noexcept {
    if (o.data_ != o.inline_) {  // the array changes hands
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = kInline;
    } else {
      // Relocated bit by bit: an Operand is scalars, an interned name's pointer and the owning
      // pointer of its element list, so its bytes at a new address are the same operand,
      // and the old bytes are dropped without their destructor (a move and a destructor per
      // operand made each statement's move, as blocks grow and finish() joins them, cost more
      // than the pool's allocation this list replaced). The whole room: a fixed-size copy.
      std::memcpy(static_cast<void*>(inline_), static_cast<const void*>(o.inline_), sizeof inline_);
    }
    size_ = o.size_;
    o.size_ = 0;
  }
  void release() noexcept {  // destroys the operands and gives back the array
    clear();
    if (data_ != inline_) free_heap();
  }
  void free_heap() noexcept;
  void grow(size_t n);
  [[noreturn]] void out_of_range(size_t j) const;

  Operand* data_ = inline_;  // inline_ or an array from operand_pool
  uint32_t size_ = 0;
  uint32_t cap_ = kInline;
  union {
    Operand inline_[kInline];
  };
};

struct Instr {
  Op op = Op::Mov;
  Type type = Type::None;   // the principal type (the last suffix of most mnemonics)
  Type type2 = Type::None;  // cvt: the source; mad.wide/mul.wide: none; wgmma/mma: A's type
  Type type3 = Type::None;  // wgmma/mma: B's type
  Type type4 = Type::None;  // mma.sync: C's type
  Space space = Space::None;
  uint8_t vec = 1;  // ld/st vector width: 1, 2 or 4
  Cmp cmp = Cmp::None;
  Round rnd = Round::None;
  Cache cache = Cache::None;
  AtomOp atom = AtomOp::None;
  ShflMode shfl = ShflMode::None;
  uint32_t flags = 0;
  int32_t n = 0;             // wgmma N, tensor rank of TMA, ldmatrix matrix count, setmaxnreg count, group count
  InstrOperands ops;         // destinations first, as PTX writes them
  int guard = -1;            // predicate register guarding the instruction, or -1
  bool guard_negated = false;
  // Printed as `// comment` above the instruction when non-empty. Interned as operand names are
  // (a handle, not a std::string: moving each instruction into its block, and the block's
  // statements when it grows, copied the string's inline buffer every time).
  OperandName comment;

  bool has(uint32_t flag) const { return (flags & flag) != 0; }
  // Sets ops to the operands given, moved in (`ops = {...}` copies each one out of its list: the
  // builder sets the operands of every instruction it makes).
  template <class... O>
  void set_ops(O&&... o) {
    ops.clear();
    ops.reserve(sizeof...(O));
    (ops.push_back(std::forward<O>(o)), ...);
  }
  // Appends a register or an immediate operand, made in place (set_ops moves each operand made
  // elsewhere into the list: the builder's hottest helpers use these).
  void add_reg(int id) {
    Operand& o = ops.emplace_back();
    o.kind = Operand::Kind::Reg;
    o.reg = id;
  }
  void add_imm(int64_t v) {
    Operand& o = ops.emplace_back();
    o.kind = Operand::Kind::Imm;
    o.imm = v;
  }
};

// Whether i's operands match its row's signature (op_table.hpp): operand_mismatch(i).empty(),
// without a string. Inline: legalize and the printer check every instruction.
inline bool operands_fit(const Instr& i) {
  const Signature& s = op_info(i.op).signature;
  const size_t n = i.ops.size();
  if (n < s.required || n > s.count) return false;
  for (size_t j = 0; j < n; ++j) {
    const OperandKind k = s.kinds[j];
    // A register is a destination or a source: most operands, decided without operand_fits().
    if (i.ops[j].kind == Operand::Kind::Reg && (k == OperandKind::Dst || k == OperandKind::Src)) continue;
    if (!operand_fits(k, i.ops[j])) return false;
  }
  return true;
}

// Structured control flow. A Block is a list of statements; legalize flattens it.
struct Stmt;
// Its storage comes from block_pool.hpp (kept for the next kernel, not given back to the system).
using Block = std::vector<Stmt, BlockAllocator<Stmt>>;

// An if's and a loop's nodes come from operand_pool.hpp's slabs, not malloc: the builder makes
// one per `if`, and an epilogue one per element it stores, each freed with its kernel.
struct IfStmt {
  int pred = -1;
  bool negated = false;  // run `then` when pred is false
  Block then_block, else_block;
  static void* operator new(size_t bytes) { return operand_pool::allocate(bytes); }
  static void operator delete(void* p, size_t bytes) noexcept { operand_pool::deallocate(p, bytes); }
};

// `while (cond) body`: `cond_block` computes `cond` (a predicate register) before each trip.
struct LoopStmt {
  Block cond_block;
  int cond = -1;
  Block body;
  static void* operator new(size_t bytes) { return operand_pool::allocate(bytes); }
  static void operator delete(void* p, size_t bytes) noexcept { operand_pool::deallocate(p, bytes); }
};

struct Stmt {
  enum class Kind : uint8_t { Instr, If, Loop };
  // User-provided, so that emplace_back() does not zero the whole statement before making it
  // (an instruction keeps room for its operands: most of its bytes).
  Stmt() {}  // NOLINT(modernize-use-equals-default)
  // An instruction statement, the instruction moved in (the builder makes one per instruction:
  // made in place, not default-made and then assigned).
  explicit Stmt(Instr&& i) : instr(std::move(i)) {}
  Stmt(const Stmt& o);  // a deep copy (a module may be copied)
  Stmt& operator=(const Stmt& o);
  Stmt(Stmt&&) noexcept = default;
  Stmt& operator=(Stmt&&) noexcept = default;
  ~Stmt() = default;
  Kind kind = Kind::Instr;
  Instr instr;
  // Set when kind == If or Loop. Pointers, not vectors of one: every statement carries both, and
  // a block's statements move each time it grows (the builder makes thousands of blocks).
  std::unique_ptr<IfStmt> if_;
  std::unique_ptr<LoopStmt> loop_;
};

struct RegInfo {
  Type type = Type::None;
  RegClass cls = RegClass::B32;
  int index = 0;  // the n of `%r<n>`: counted per class, from 1
};

struct Param {
  enum class Kind : uint8_t { Scalar, Pointer, TensorMap };
  Kind kind = Kind::Scalar;
  std::string name;
  Type type = Type::U64;  // Scalar: its type; Pointer: u64; TensorMap: b8 [128], align 64
};

struct SharedAlloc {
  std::string name;
  int64_t bytes = 0;  // 0 for the dynamic (extern) array
  int align = 16;
  bool dynamic = false;
};

struct Kernel {
  std::string name;
  std::vector<Param> params;
  std::vector<RegInfo> regs;  // by register id
  std::vector<SharedAlloc> shared;
  Block body;
  std::optional<std::array<int, 3>> reqntid;       // .reqntid: the exact block shape
  std::optional<std::array<int, 3>> maxntid;       // .maxntid
  std::optional<std::array<int, 3>> cluster_dims;  // .reqnctapercluster
  int minnctapersm = 0;                            // .minnctapersm when > 0
  Requirement min_target;                          // a floor the author asks for (e.g. sm_90a for a kernel family)
};

struct Module {
  std::vector<Kernel> kernels;
};

// The requirement of one instruction (its row's floor, raised by its modifiers and operands; see
// op_table.hpp), and the highest over a module (with its kernels' floors).
Requirement requirement(const Instr& i);
Requirement requirement(const Kernel& k);
Requirement requirement(const Module& m);
// The parts of those: what a top-level operand of an instruction adds to the instruction's
// (cluster special registers, the sink `_`), and what a kernel needs besides its instructions
// (its floor, cluster dimensions, TMA descriptor parameters). The printer raises these as it
// walks the instructions (print.cpp), so the module's requirement costs no walk of its own.
Requirement operand_requirement(const Operand& o);
Requirement kernel_floor(const Kernel& k);
// The larger of two requirements: the highest ptx and sm, either's `a`; `what` names the feature
// with the highest (sm, a, ptx).
Requirement raise(Requirement a, const Requirement& b);
// `sm_90a`, `sm_80`.
std::string target_name(const Requirement& r);

}  // namespace tessel::codegen
