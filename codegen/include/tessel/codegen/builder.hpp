// builder.hpp: the API kernel authors write against. C++ runs at generation time and emits IR:
// values with operators, structured control flow, tensors (pointer + space + layout) indexed
// through the layout algebra, and the lowering of the algebra's symbolic integers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessel/algebra.hpp"
#include "tessel/codegen/function_ref.hpp"
#include "tessel/codegen/ir.hpp"

namespace tessel::codegen {

class KernelBuilder;

// A typed virtual register at generation time. Arithmetic on Values emits instructions into the
// builder's current block; the operation's type is the operands' type (they must agree).
class Value {
 public:
  Value() = default;
  Value(KernelBuilder* b, int id, Type t) : b_(b), id_(id), type_(t) {}
  bool valid() const { return b_ != nullptr; }
  int id() const { return id_; }
  Type type() const { return type_; }
  KernelBuilder& builder() const {  // inline: operators and the CSE table ask for every value
    if (!b_) [[unlikely]]
      empty_value();
    return *b_;
  }
  Operand op() const { return Operand::r(id_); }

 private:
  [[noreturn]] static void empty_value();  // builder()'s refusal, out of line
  KernelBuilder* b_ = nullptr;
  int id_ = -1;
  Type type_ = Type::None;
};

// Arithmetic (integer and float), bitwise and shifts; an int64 operand becomes an immediate of
// the other operand's type. Comparisons give a pred Value (signed or unsigned by the type).
Value operator+(Value a, Value b);
Value operator-(Value a, Value b);
Value operator*(Value a, Value b);  // mul.lo for integers
Value operator/(Value a, Value b);
Value operator%(Value a, Value b);
Value operator&(Value a, Value b);  // and.pred for predicates too
Value operator|(Value a, Value b);
Value operator^(Value a, Value b);
Value operator<<(Value a, Value b);
Value operator>>(Value a, Value b);
Value operator+(Value a, int64_t b);
Value operator-(Value a, int64_t b);
Value operator*(Value a, int64_t b);
Value operator/(Value a, int64_t b);
Value operator%(Value a, int64_t b);
Value operator&(Value a, int64_t b);
Value operator<<(Value a, int64_t b);
Value operator>>(Value a, int64_t b);
Value operator<(Value a, Value b);
Value operator<=(Value a, Value b);
Value operator>(Value a, Value b);
Value operator>=(Value a, Value b);
Value operator==(Value a, Value b);
Value operator!=(Value a, Value b);
Value operator<(Value a, int64_t b);
Value operator<=(Value a, int64_t b);
Value operator>(Value a, int64_t b);
Value operator>=(Value a, int64_t b);
Value operator==(Value a, int64_t b);
Value operator!=(Value a, int64_t b);
Value operator!(Value p);  // not.pred
Value operator-(Value a);  // neg

// The special registers (PTX ISA, "Special Registers").
enum class Special : uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  ClusterCtaRank,
  ClusterCtaidX,
  ClusterCtaidY,
  ClusterCtaidZ,
  ClusterIdX,
  ClusterIdY,
  ClusterIdZ,
  NclusterIdX,
  SmId,
  DynamicSmemSize,
};
const char* ptx_name(Special s);  // "%tid.x"

// A tensor: a base address in a state space, an element type and a layout from coordinates to
// element offsets (plain or swizzled; slicing moves fixed coordinates into its offset). Offsets
// are computed in `index` (s32 where the author knows every offset fits, s64 otherwise).
struct Tensor {
  Value base;  // u64 for global/generic, u32 for shared
  Space space = Space::Global;
  Type elem = Type::F32;
  ComposedLayout layout;  // swizzle o offset o layout; the plain case has the identity swizzle
  Type index = Type::S64;
  int64_t base_align = 0;  // known alignment of `base` in bytes (0: the element size)
  // The layout's byte offsets at 1-D element indices (a dynamic part and a static addend), kept as
  // address_parts works them out, for a view used at many bases (an epilogue's box views): set by
  // memoized(), shared by copies, dropped by every operation that makes a new layout.
  struct ElementOffsets {
    std::vector<std::optional<std::pair<Int, int64_t>>> at;
    // The widest vector access (memory.cpp's max_vector) for a limit and base alignment, the last
    // asked: a box's loads and stores ask it at every base, and each answer coalesces the layout.
    struct Vector {
      int64_t limit = 0, base_align = 0, width = 0;
    } vector;
  };
  std::shared_ptr<ElementOffsets> offsets;

  Tensor() = default;
  Tensor(Value base, Space space, Type elem, Layout layout, Type index = Type::S64, int64_t base_align = 0);
  Tensor(Value base, Space space, Type elem, ComposedLayout layout, Type index = Type::S64, int64_t base_align = 0);

  // Slicing: `_` modes stay, the others move into the offset.
  Tensor operator()(const SliceCoord& c) const;
  // Re-views the same memory: the layout becomes layout o tiler (composition).
  Tensor compose(const Layout& l) const;
  Tensor compose(const Tiler& t) const;
  // Splits the layout by a tiler into ((tile),(rest)), as zipped_divide.
  Tensor zipped_divide(const Tiler& t) const;
  Int size() const;
  // This view with its element offsets kept (see `offsets`): its copies at other bases then
  // evaluate the layout once per element, not once per copy.
  Tensor memoized() const;
  // The same view (layout, kept offsets) of the memory at another base.
  Tensor at_base(Value b) const;
};

struct LoadOptions {
  Cache cache = Cache::None;
  bool nc = false;  // ld.global.nc
  bool no_allocate_l1 = false;
  bool prefetch_l2 = false;  // .L2::128B
};

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name);
  KernelBuilder(const KernelBuilder&) = delete;
  KernelBuilder& operator=(const KernelBuilder&) = delete;

  // The finished kernel (the builder must not be used afterwards).
  Kernel finish();
  Kernel& kernel() { return k_; }

  // --- Parameters: declared in order, loaded in the kernel's entry block. ---
  Value param(const std::string& name, Type t);
  Value global_pointer_param(const std::string& name);  // u64, converted with cvta.to.global
  Value tensor_map_param(const std::string& name);      // the generic address of a 128-byte TMA descriptor

  // --- Registers and constants. ---
  Value reg(Type t);
  Value constant(int64_t v, Type t);
  Value constant_f32(float v);
  Value constant_f64(double v);
  Value mov(Value v);                 // a copy in a fresh register
  void assign(Value dst, Value src);  // mov into an existing register
  void assign(Value dst, int64_t imm);
  Value special(Special s);  // u32, read once in the entry block

  // --- Symbols of the algebra: dynamic Ints that stand for run-time values. ---
  // A fresh symbol bound to `v` (lower bound 0 unless given), e.g. thread index.
  Int symbol(const std::string& name, Value v, int64_t divisibility = 1, int64_t lower_bound = 0);
  void bind(const Int& symbol, Value v);
  Int thread_index(int dim = 0);  // %tid.x/y/z as a symbol `tid.x` bound to its register
  Int block_index(int dim = 0);   // %ctaid.x/y/z as `ctaid.x`
  // Emits the instructions that compute x in type t (s32, u32, s64, u64). Static x becomes a
  // constant; shared subexpressions are computed once per scope; powers of two become shifts
  // and masks where x is known non-negative.
  Value lower(const Int& x, Type t = Type::S32);
  // Comments naming the layout operation that produced a stretch of index arithmetic, printed
  // when PrintOptions::comments is set. The note applies until the next note or end_note().
  void note(std::string text);
  void end_note() { note(std::string()); }

  // --- Arithmetic beyond the operators. ---
  Value binary(Op op, Value a, Value b, uint32_t flags = 0);
  Value binary(Op op, Value a, int64_t imm, uint32_t flags = 0);
  Value unary(Op op, Value a);
  Value mad(Value a, Value b, Value c);  // a*b+c (mad.lo for integers, fma.rn for floats)
  // The same into an existing register (an assignment, as assign(); dst may be c: c += a*b).
  void mad_to(Value dst, Value a, Value b, Value c);
  Value mul_wide(Value a, Value b);      // 32x32 -> 64
  Value mul_wide(Value a, int64_t b);
  Value min(Value a, Value b);
  Value max(Value a, Value b);
  Value compare(Cmp c, Value a, Value b);
  Value compare(Cmp c, Value a, int64_t b);
  Value select(Value pred, Value a, Value b);  // selp
  Value cvt(Value v, Type to, Round rnd = Round::None);
  Value cvta_to_global(Value generic);
  Value address_of(const std::string& symbol);  // mov.u32/u64 %r, symbol

  // --- Memory. `addr` is a u64 (global/generic) or u32 (shared) address register; offsets in bytes.
  std::vector<Value> load(Space s, Type t, Value addr, int64_t offset = 0, int vec = 1, LoadOptions o = {});
  // The same into existing registers (an assignment, as assign(): no mov after a fresh load).
  void load_to(const std::vector<Value>& dst, Space s, Type t, Value addr, int64_t offset = 0, LoadOptions o = {});
  void store(Space s, Type t, Value addr, const std::vector<Value>& values, int64_t offset = 0,
             Cache cache = Cache::None);
  Value atom(Space s, AtomOp op, Type t, Value addr, Value v);
  void red(Space s, AtomOp op, Type t, Value addr, Value v);
  // The address of element `coord` of a tensor (coordinate of any profile of its shape).
  Value address(const Tensor& t, const Coord& coord);
  Value address(const Tensor& t);  // of its offset alone

  // Copies every element of `src` to `dst` (same size; both per-thread views), using the widest
  // vector (up to 16 bytes) that both layouts and alignments allow, under an optional guard.
  void copy(const Tensor& src, const Tensor& dst, Value guard = {});
  // Loads every element of a per-thread tensor (static size) into registers, and stores
  // registers into one, with the same vectorization as copy. Elements narrower than 32 bits
  // travel in b32 words and are split and joined with mov.b32.
  std::vector<Value> load_tensor(const Tensor& src, Value guard = {}, LoadOptions o = {});
  void store_tensor(const Tensor& dst, const std::vector<Value>& values, Value guard = {});
  // One guard per element (a ragged edge inside a vector): element stores, sharing one address.
  void store_tensor(const Tensor& dst, const std::vector<Value>& values, const std::vector<Value>& guards);

  // --- Shared memory. ---
  Value shared_array(const std::string& name, int64_t bytes, int align = 16);  // u32 address
  Value dynamic_shared(const std::string& name, int align = 1024);             // u32 address

  // --- Control flow. ---
  void if_(Value pred, FunctionRef<void()> then_fn, FunctionRef<void()> else_fn = {});
  // A loop with a dynamic trip count: for (i = begin; i < end; i += step) body(i).
  void for_range(Value begin, Value end, int64_t step, const std::function<void(Value)>& body);
  void while_(FunctionRef<Value()> cond, FunctionRef<void()> body);
  // A loop unrolled at generation time: body(0) ... body(n-1).
  void unrolled(int n, const std::function<void(int)>& body);
  void ret();

  // --- Raw emission: every instruction helper ends here (the hottest fill an append()ed one in
  // place, where this ends too). The guard, if valid, predicates it.
  void emit(Instr i, Value guard = {}, bool guard_negated = false);

 private:
  Block& current() { return *blocks_.back(); }
  // A new instruction at the end of the block being filled, made there for the caller to fill
  // (the hottest helpers: binary, compare, cvt, assign, mad; an emit() moved each instruction
  // twice on its way in). Nothing else may be emitted until it is filled; emit() ends here too.
  // Inline, as fresh(): every instruction and register passes through them, and out of line each
  // call cost more than its work (callgrind).
  Instr& append() {
    if (finished_) [[unlikely]]
      emit_after_finish();
    Block& b = emit_to_entry_ ? entry_ : current();
    if (b.size() == b.capacity()) [[unlikely]]
      grow(b);
    Instr& i = b.emplace_back().instr;
    if (note_changed_) [[unlikely]]
      take_note(i);
    return i;
  }
  [[noreturn]] void emit_after_finish() const;
  static void grow(Block& b);  // room for 4x the statements, append()'s rare path
  void take_note(Instr& i);  // the pending note() onto i, append()'s rare path
  // Always inline: GCC kept it out of line, where saving and restoring the registers its vector
  // growth path needs cost more than its work.
  [[gnu::always_inline]] Value fresh(Type t) {
    const RegClass c = reg_class(t);
    k_.regs.push_back(RegInfo{t, c, ++class_count_[static_cast<int>(c)]});
    return Value(this, static_cast<int>(k_.regs.size()) - 1, t);
  }
  void declare(Param p);
  Value load_param(const std::string& name, Type t);  // ld.param into the entry block
  void in_entry(const std::function<void()>& fn);     // emits what fn emits into the entry block
  void in_block(Block& b, FunctionRef<void()> fn);
  Value lower_expr(const Int& x, Type t);
  // load()'s work, its registers appended to `out` (load_tensor loads into one list: a list per
  // load was an allocation per element of the epilogue's C boxes).
  void load_into(std::vector<Value>& out, Space s, Type t, Value addr, int64_t offset, int vec, LoadOptions o);
  void emit_load(std::span<const Value> dst, Space s, Type t, Value addr, int64_t offset, LoadOptions o);
  void emit_mad(Value r, Value a, Value b, Value c);
  Value join_bytes(Value lo, Value hi);
  std::pair<Value, int64_t> address_parts(const Tensor& t, const Coord& coord);
  void push_scope();
  void pop_scope();

  Kernel k_;
  Block entry_;  // parameter loads and special-register reads, printed first
  bool emit_to_entry_ = false;
  std::vector<Block*> blocks_;  // the block being filled, innermost last
  // Common subexpressions: (expression, tag) -> value, visible in the scope that lowered it and the
  // scopes inside it. The tag is the lowered type, or the base register of an address sum. One
  // table for all scopes (cse.cpp): entries form a stack, a closing scope drops its own from the
  // top, and each structural hash chains its entries newest (innermost) first from an
  // open-addressed index. A hash map per scope allocated a node per entry and a table per scope.
  class CseTable {
   public:
    // What find() learned of x for the insert() after it: x's hash and the slot of the index that
    // holds it or where it would go (one probe per lowered node, not one per lookup and insert).
    struct Probe {
      uint64_t hash = 0;
      size_t slot = 0;
    };
    Value find(const Int& x, int tag, Probe& p) const;
    // Records v for (x, tag), with p from the find() of x that missed (the table may have
    // changed since: its slot is taken again where it no longer holds x's hash).
    void insert(const Int& x, int tag, Value v, const Probe& p);
    void open();   // a scope
    void close();  // drops the entries inserted since the matching open()

   private:
    // The expression as its node (null for a static value) and value: an Int would copy its basis
    // path in and out of every entry (keys have none: lower() refuses basis elements).
    struct Entry {
      ExprPtr expr;
      int64_t value;
      int tag;
      // The value as its register and type (the builder is b_): a Value stored whole was copied
      // as two overlapping 8-byte moves through the stack (its 13 bytes and padding), and the
      // load across two stores stalled at every insert (perf).
      int reg;
      Type type;
      uint64_t hash;
      int prev;       // the previous entry with the same hash, or -1
      uint32_t slot;  // its hash's slot (kept: close() finds it without probing)
      bool is(const Int& x) const {
        if (x.is_static()) return !expr && value == x.value();
        return expr && same_expr(*expr, *x.expr());
      }
    };
    struct Slot {
      uint64_t hash = 0;
      int head = -2;  // the newest entry with this hash; -1: none now; -2: the slot is free
    };
    size_t probe(uint64_t h) const;
    size_t claim(uint64_t h);  // the slot of hash h, taken if it was free
    std::vector<Entry> entries_;
    std::vector<size_t> scopes_;  // entries_.size() at each open()
    std::vector<Slot> slots_;     // a power of two of them, at most half taken
    size_t taken_ = 0;
    KernelBuilder* b_ = nullptr;  // the builder of every value recorded
  };
  CseTable cse_;
  std::vector<std::map<std::string, Value>> bound_;  // symbol name -> value, per scope
  std::map<std::string, Int> index_symbols_;         // tid.x, ctaid.x, ...
  std::map<int, Value> specials_;
  int class_count_[6] = {};
  std::string note_, last_note_;
  bool note_changed_ = false;  // note_ != last_note_, kept by note() so that emit compares no strings
  bool finished_ = false;
};

}  // namespace tessel::codegen
