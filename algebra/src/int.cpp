// int.cpp: static folding and the simplifier that builds expression graphs for dynamic values.
#include "tessel/algebra/int.hpp"

#include <atomic>
#include <charconv>
#include <memory>
#include <new>
#include <numeric>

#include "tessel/algebra/pooling.hpp"

namespace tessel {

namespace {

const char* op_name(ExprOp op) {
  switch (op) {
    case ExprOp::Symbol:
      return "symbol";
    case ExprOp::Add:
      return "+";
    case ExprOp::Sub:
      return "-";
    case ExprOp::Mul:
      return "*";
    case ExprOp::Div:
      return "/";
    case ExprOp::Mod:
      return "%";
    case ExprOp::CeilDiv:
      return "ceil_div";
    case ExprOp::Min:
      return "min";
    case ExprOp::Max:
      return "max";
    case ExprOp::And:
      return "&";
    case ExprOp::Xor:
      return "^";
    case ExprOp::Shr:
      return ">>";
    case ExprOp::Shl:
      return "<<";
  }
  return "?";
}

int64_t gcd64(int64_t a, int64_t b) { return std::gcd(a, b); }

// Folds a binary operation on two static values.
int64_t fold(ExprOp op, int64_t a, int64_t b) {
  auto nonzero = [&] {
    if (b == 0) fail("division by zero: " + std::to_string(a) + " " + op_name(op) + " 0");
  };
  switch (op) {
    case ExprOp::Add:
      return checked_add(a, b);
    case ExprOp::Sub: {
      int64_t r;
      if (__builtin_sub_overflow(a, b, &r)) fail("integer overflow: " + std::to_string(a) + " - " + std::to_string(b));
      return r;
    }
    case ExprOp::Mul:
      return checked_mul(a, b);
    case ExprOp::Div:
      nonzero();
      if (a == INT64_MIN && b == -1) fail("integer overflow in division");
      return a / b;
    case ExprOp::Mod:
      nonzero();
      if (b == -1) return 0;
      return a % b;
    case ExprOp::CeilDiv: {
      nonzero();
      if (a == INT64_MIN && b == -1) fail("integer overflow in ceil_div");
      int64_t q = a / b;
      if ((a % b != 0) && ((a > 0) == (b > 0))) ++q;
      return q;
    }
    case ExprOp::Min:
      return a < b ? a : b;
    case ExprOp::Max:
      return a > b ? a : b;
    case ExprOp::And:
      return a & b;
    case ExprOp::Xor:
      return a ^ b;
    case ExprOp::Shr:
      if (b < 0 || b > 63) fail("shift amount out of range: " + std::to_string(b));
      return a >> b;
    case ExprOp::Shl:
      if (b < 0 || b > 62 || (a != 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b))))
        fail("integer overflow: " + std::to_string(a) + " << " + std::to_string(b));
      return a << b;
    case ExprOp::Symbol:
      break;
  }
  fail("internal error: fold of a symbol");
}

bool is_value(const Int& x, int64_t v) { return x.is_static() && !x.has_basis() && x.value() == v; }

uint64_t mix(uint64_t h, uint64_t v) {  // boost's hash_combine, widened to 64 bits
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 12) + (h >> 4));
}

// The allocator of expression nodes (each with its shared_ptr's count, as allocate_shared makes
// them): carved from per-thread 64 KiB slabs and recycled through a per-thread free list. Lowering
// an address builds nodes by the hundred thousand and drops most of them at once; from malloc
// their allocation and release took its slow paths (more than tcache holds), a tenth of
// generation's allocator time. Slabs are never given back: the memory held is the most nodes
// alive at once on the thread. A node released on another thread joins that thread's list.
template <class T>
struct NodeAllocator {
  using value_type = T;
  NodeAllocator() = default;
  template <class U>
  NodeAllocator(const NodeAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding

  struct Free {
    Free* next;
  };
  static constexpr size_t kSize = (sizeof(T) + 15) / 16 * 16;
  static constexpr size_t kSlab = size_t{1} << 16;
  struct Pool {
    Free* free = nullptr;
    char* next = nullptr;  // the unused rest of the current slab
    char* end = nullptr;
  };
  static Pool& pool() {
    thread_local Pool p;
    return p;
  }

  T* allocate(size_t n) {
    if (!kPoolMemory || n != 1) return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{16}));
    Pool& p = pool();
    if (Free* f = p.free) {
      p.free = f->next;
      return reinterpret_cast<T*>(f);
    }
    if (static_cast<size_t>(p.end - p.next) < kSize) {
      p.next = static_cast<char*>(::operator new(kSlab, std::align_val_t{16}));
      p.end = p.next + kSlab;
    }
    T* r = reinterpret_cast<T*>(p.next);
    p.next += kSize;
    return r;
  }
  void deallocate(T* ptr, size_t n) noexcept {
    if (!kPoolMemory || n != 1) {
      ::operator delete(ptr, std::align_val_t{16});
      return;
    }
    Pool& p = pool();
    auto* f = reinterpret_cast<Free*>(ptr);
    f->next = p.free;
    p.free = f;
  }
  template <class U>
  friend bool operator==(const NodeAllocator&, const NodeAllocator<U>&) {
    return true;
  }
};

std::shared_ptr<Expr> new_node() { return std::allocate_shared<Expr>(NodeAllocator<Expr>()); }

Int node(ExprOp op, const Int& a, const Int& b, int64_t div, std::optional<int64_t> lo) {
  auto e = new_node();
  e->op = op;
  e->a = a;
  e->b = b;
  e->div = div < 1 ? 1 : div;
  e->lo = lo;
  e->hash = mix(mix(static_cast<uint64_t>(op), hash_value(a)), hash_value(b));
  // expr_string opens with '(' then a's text, except for ceil_div(...), min(...), max(...).
  bool call_form = op == ExprOp::CeilDiv || op == ExprOp::Min || op == ExprOp::Max;
  e->open = call_form ? 0 : 1 + (a.is_dynamic() ? a.expr()->open : 0);
  return Int::from_expr(std::move(e));
}

bool is_op(const Int& x, ExprOp op) { return x.is_dynamic() && x.expr()->op == op; }

// Total order used to put the operands of + and * in a canonical order, so that a+b == b+a:
// by expression text, then (for anonymous symbols of different inputs that print alike) by hash.
bool canonical_less(const Int& a, const Int& b) {
  if (a.is_static() != b.is_static()) return b.is_static();  // static operand goes right
  if (a.is_static()) return a.value() < b.value();
  if (int c = compare_expr_strings(a, b)) return c < 0;
  return hash_value(a) < hash_value(b);
}

std::optional<int64_t> lo_add(const Int& a, const Int& b) {
  auto x = a.lower_bound(), y = b.lower_bound();
  if (!x || !y) return std::nullopt;
  int64_t r;
  if (__builtin_add_overflow(*x, *y, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> lo_mul(const Int& a, const Int& b) {
  auto x = a.lower_bound(), y = b.lower_bound();
  if (!x || !y || *x < 0 || *y < 0) return std::nullopt;
  int64_t r;
  if (__builtin_mul_overflow(*x, *y, &r)) return std::nullopt;
  return r;
}

int64_t div_mul(int64_t a, int64_t b) {
  int64_t r;
  if (a == 0 || b == 0) return 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::max(a, b);
  return r;
}

// The simplifier: operands are plain (no basis) integers here.
Int build(ExprOp op, Int a, Int b) {
  if (a.is_static() && b.is_static()) return Int(fold(op, a.value(), b.value()));
  switch (op) {
    case ExprOp::Add: {
      if (a.is_static() || (!b.is_static() && canonical_less(b, a))) std::swap(a, b);
      if (is_value(b, 0)) return a;
      if (b.is_static() && is_op(a, ExprOp::Add) && a.expr()->b.is_static())
        return build(ExprOp::Add, a.expr()->a, fold(ExprOp::Add, a.expr()->b.value(), b.value()));
      return node(op, a, b, gcd64(a.divisibility(), b.divisibility()), lo_add(a, b));
    }
    case ExprOp::Sub: {
      if (is_value(b, 0)) return a;
      if (a == b) return Int(0);
      if (b.is_static() && b.value() != INT64_MIN) return build(ExprOp::Add, a, Int(-b.value()));
      if (is_op(a, ExprOp::Add) && a.expr()->a == b) return a.expr()->b;
      if (is_op(a, ExprOp::Add) && a.expr()->b == b) return a.expr()->a;
      return node(op, a, b, gcd64(a.divisibility(), b.divisibility()), std::nullopt);
    }
    case ExprOp::Mul: {
      if (a.is_static() || (!b.is_static() && canonical_less(b, a))) std::swap(a, b);
      if (is_value(b, 0)) return Int(0);
      if (is_value(b, 1)) return a;
      if (b.is_static() && is_op(a, ExprOp::Mul) && a.expr()->b.is_static())
        return build(ExprOp::Mul, a.expr()->a, fold(ExprOp::Mul, a.expr()->b.value(), b.value()));
      return node(op, a, b, div_mul(a.divisibility(), b.divisibility()), lo_mul(a, b));
    }
    case ExprOp::Div: {
      if (is_value(b, 0)) fail("division by zero: " + expr_string(a) + " / 0");
      if (is_value(b, 1)) return a;
      if (is_value(a, 0)) return Int(0);
      if (a == b) return Int(1);
      if (b.is_static() && b.value() > 0) {
        int64_t d = b.value();
        if (is_op(a, ExprOp::Mul) && a.expr()->b.is_static() && a.expr()->b.value() % d == 0)
          return build(ExprOp::Mul, a.expr()->a, Int(a.expr()->b.value() / d));
        if (is_op(a, ExprOp::Div) && a.expr()->b.is_static() && a.expr()->b.value() > 0)
          return build(ExprOp::Div, a.expr()->a, Int(checked_mul(a.expr()->b.value(), d)));
        int64_t da = a.divisibility();
        std::optional<int64_t> lo;
        if (auto l = a.lower_bound(); l && *l >= 0) lo = *l / d;
        return node(op, a, b, da % d == 0 ? da / d : 1, lo);
      }
      if (is_op(a, ExprOp::Mul) && a.expr()->a == b) return a.expr()->b;
      if (is_op(a, ExprOp::Mul) && a.expr()->b == b) return a.expr()->a;
      return node(op, a, b, 1, std::nullopt);
    }
    case ExprOp::Mod: {
      if (is_value(b, 0)) fail("division by zero: " + expr_string(a) + " % 0");
      if (provably_divides(b, a)) return Int(0);
      std::optional<int64_t> lo;
      if (auto l = a.lower_bound(); l && *l >= 0) lo = 0;
      return node(op, a, b, b.is_static() ? gcd64(a.divisibility(), b.value()) : 1, lo);
    }
    case ExprOp::CeilDiv: {
      if (is_value(b, 0)) fail("division by zero: ceil_div(" + expr_string(a) + ",0)");
      if (is_value(b, 1)) return a;
      if (provably_divides(b, a)) return build(ExprOp::Div, a, b);
      std::optional<int64_t> lo;
      if (auto l = a.lower_bound(); l && *l >= 1 && b.is_static() && b.value() > 0)
        lo = fold(ExprOp::CeilDiv, *l, b.value());
      return node(op, a, b, 1, lo);
    }
    case ExprOp::Min:
    case ExprOp::Max: {
      if (a == b) return a;
      auto le = known_less_equal(a, b);
      if (!le) {
        if (auto ge = known_less_equal(b, a); ge && *ge) le = false;
      }
      if (le) return (*le == (op == ExprOp::Min)) ? a : b;
      if (a.is_static()) std::swap(a, b);
      std::optional<int64_t> lo;
      auto la = a.lower_bound(), lb = b.lower_bound();
      if (op == ExprOp::Min && la && lb) lo = std::min(*la, *lb);
      if (op == ExprOp::Max && (la || lb)) lo = std::max(la.value_or(INT64_MIN), lb.value_or(INT64_MIN));
      return node(op, a, b, gcd64(a.divisibility(), b.divisibility()), lo);
    }
    case ExprOp::And: {
      if (is_value(a, 0) || is_value(b, 0)) return Int(0);
      // x & y >= 0 when either operand is (its sign bit clears the result's); -1 & -1 == -1.
      auto non_negative = [](const Int& x) { return x.lower_bound() && *x.lower_bound() >= 0; };
      return node(op, a, b, 1, non_negative(a) || non_negative(b) ? std::optional<int64_t>(0) : std::nullopt);
    }
    case ExprOp::Xor:
      if (is_value(b, 0)) return a;
      if (is_value(a, 0)) return b;
      return node(op, a, b, 1, std::nullopt);
    case ExprOp::Shr:
    case ExprOp::Shl:
      if (is_value(b, 0)) return a;
      if (is_value(a, 0)) return Int(0);
      return node(op, a, b, 1, std::nullopt);
    case ExprOp::Symbol:
      break;
  }
  fail("internal error: build of a symbol");
}

std::string basis_suffix(const BasisPath& p) {
  std::string s;
  for (int i : p) s += "@" + std::to_string(i);
  return s;
}

void require_plain(const Int& x, const char* what) {
  if (x.has_basis())
    fail(std::string(what) + ": operand " + to_string(x) +
         " is a scaled basis element (a coordinate stride), not an integer");
}

Int plain_op(ExprOp op, const Int& a, const Int& b, const char* what) {
  require_plain(a, what);
  require_plain(b, what);
  return build(op, a, b);
}

}  // namespace

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail("integer overflow: " + std::to_string(a) + " + " + std::to_string(b) + " does not fit in 64 bits");
  return r;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail("integer overflow: " + std::to_string(a) + " * " + std::to_string(b) + " does not fit in 64 bits");
  return r;
}

Int Int::symbol(std::string name, int64_t divisibility) {
  return symbol(std::move(name), divisibility, divisibility);  // a positive multiple of divisibility
}

namespace {
std::atomic<uint64_t> anonymous_serial{0};

Int make_symbol(std::string name, uint64_t serial, int64_t divisibility, int64_t lower_bound) {
  if (divisibility < 1) fail("symbol " + name + ": divisibility must be >= 1, got " + std::to_string(divisibility));
  auto e = new_node();
  e->op = ExprOp::Symbol;
  e->hash = mix(mix(static_cast<uint64_t>(ExprOp::Symbol), std::hash<std::string>{}(name)), serial);
  e->name = std::move(name);
  e->serial = serial;
  e->div = divisibility;
  e->lo = lower_bound;
  return Int::from_expr(std::move(e));
}
}  // namespace

Int Int::symbol(std::string name, int64_t divisibility, int64_t lower_bound) {
  if (name.empty()) {  // printed by its serial: two of them never print alike
    const uint64_t serial = ++anonymous_serial;
    return make_symbol("?" + std::to_string(serial), serial, divisibility, lower_bound);
  }
  return make_symbol(std::move(name), 0, divisibility, lower_bound);
}

Int Int::anonymous(int64_t index, int64_t divisibility) {
  return make_symbol("?" + std::to_string(index), ++anonymous_serial, divisibility, divisibility);
}

Int Int::from_expr(ExprPtr e) {
  Int x;
  x.expr_ = std::move(e);
  return x;
}

void Int::not_static(const char* what) const {
  fail(std::string(what) + " must be static (known while generating), but is " + expr_string(*this));
}

std::optional<int64_t> Int::static_value() const {
  if (expr_) return std::nullopt;
  return value_;
}

int64_t Int::divisibility() const {
  if (!expr_) return value_ < 0 ? (value_ == INT64_MIN ? 1 : -value_) : value_;
  return expr_->div;
}

std::optional<int64_t> Int::lower_bound() const {
  if (!expr_) return value_;
  return expr_->lo;
}

Int Int::with_basis(BasisPath path) const {
  Int r = *this;
  r.basis_ = std::move(path);
  return r;
}

Int Int::coefficient() const {
  Int r = *this;
  r.basis_.clear();
  return r;
}

// The arithmetic operators take a shortcut for plain integers (no basis), the common case: no
// coefficient copies, and static operands fold at once. Layout evaluation (crd2idx) is mostly
// this arithmetic, and the copies (a shared pointer and a vector each) dominated it.
Int operator+(const Int& a, const Int& b) {
  if (!a.has_basis() && !b.has_basis()) {
    if (a.is_static() && b.is_static()) return Int(checked_add(a.value(), b.value()));
    return build(ExprOp::Add, a, b);
  }
  if (a.basis() == b.basis()) return build(ExprOp::Add, a.coefficient(), b.coefficient()).with_basis(a.basis());
  if (is_value(a.coefficient(), 0)) return b;
  if (is_value(b.coefficient(), 0)) return a;
  fail("cannot add " + to_string(a) + " and " + to_string(b) +
       ": they scale different basis elements (their sum is a coordinate, not an integer)");
}

Int operator-(const Int& a, const Int& b) {
  if (a.basis() == b.basis()) return build(ExprOp::Sub, a.coefficient(), b.coefficient()).with_basis(a.basis());
  if (is_value(b.coefficient(), 0)) return a;
  fail("cannot subtract " + to_string(b) + " from " + to_string(a) + ": different basis elements");
}

Int operator-(const Int& a) { return Int(0).with_basis(a.basis()) - a; }

Int operator*(const Int& a, const Int& b) {
  if (!a.has_basis() && !b.has_basis()) {
    if (a.is_static() && b.is_static()) return Int(checked_mul(a.value(), b.value()));
    return build(ExprOp::Mul, a, b);
  }
  if (a.has_basis() && b.has_basis())
    fail("cannot multiply " + to_string(a) + " by " + to_string(b) + ": both are basis elements");
  const BasisPath& p = a.has_basis() ? a.basis() : b.basis();
  return build(ExprOp::Mul, a.coefficient(), b.coefficient()).with_basis(p);
}

Int operator/(const Int& a, const Int& b) { return plain_op(ExprOp::Div, a, b, "division"); }
Int operator%(const Int& a, const Int& b) { return plain_op(ExprOp::Mod, a, b, "remainder"); }
Int ceil_div(const Int& a, const Int& b) { return plain_op(ExprOp::CeilDiv, a, b, "ceil_div"); }
Int min(const Int& a, const Int& b) { return plain_op(ExprOp::Min, a, b, "min"); }
Int max(const Int& a, const Int& b) { return plain_op(ExprOp::Max, a, b, "max"); }
Int bit_and(const Int& a, const Int& b) { return plain_op(ExprOp::And, a, b, "bit_and"); }
Int bit_xor(const Int& a, const Int& b) { return plain_op(ExprOp::Xor, a, b, "bit_xor"); }
Int shift_right(const Int& a, const Int& b) { return plain_op(ExprOp::Shr, a, b, "shift_right"); }
Int shift_left(const Int& a, const Int& b) { return plain_op(ExprOp::Shl, a, b, "shift_left"); }

bool operator==(const Int& a, const Int& b) {
  if (a.basis() != b.basis()) return false;
  if (a.is_static() != b.is_static()) return false;
  if (a.is_static()) return a.value() == b.value();
  return same_expr(*a.expr(), *b.expr());
}

bool same_expr(const Expr& x, const Expr& y) {
  if (&x == &y) return true;
  if (x.op != y.op) return false;
  if (x.hash != y.hash) return false;
  if (x.op == ExprOp::Symbol) return x.name == y.name && x.serial == y.serial;
  return x.a == y.a && x.b == y.b;
}

bool provably_divides(const Int& d, const Int& x) {
  if (d.has_basis() || x.has_basis()) return false;
  if (d.is_static()) {
    int64_t dv = d.value();
    if (dv == 0) return is_value(x, 0);
    int64_t dx = x.divisibility();
    return dx % dv == 0;
  }
  if (d == x) return true;
  if (is_op(x, ExprOp::Mul)) return provably_divides(d, x.expr()->a) || provably_divides(d, x.expr()->b);
  return false;
}

std::optional<bool> known_less_equal(const Int& a, const Int& b) {
  if (a == b) return true;
  if (a.is_static() && b.is_static()) return a.value() <= b.value();
  if (a.is_static()) {
    if (auto l = b.lower_bound(); l && a.value() <= *l) return true;
    return std::nullopt;
  }
  if (b.is_static()) {
    if (auto l = a.lower_bound(); l && *l > b.value()) return false;
    return std::nullopt;
  }
  return std::nullopt;
}

int64_t evaluate(const Int& x, const Env& env) {
  if (x.has_basis()) fail("evaluate: " + to_string(x) + " is a basis element, not an integer");
  if (x.is_static()) return x.value();
  const Expr& e = *x.expr();
  if (e.op == ExprOp::Symbol) {
    auto it = env.find(e.name);
    if (it == env.end() && e.name.rfind('?', 0) == 0)
      fail("evaluate: an anonymous ? cannot be given a value; name the symbol (e.g. M) to evaluate it");
    if (it == env.end()) fail("evaluate: no value given for symbol " + e.name);
    const int64_t lo = e.lo.value_or(1);
    if (it->second % e.div != 0 || it->second < lo)
      fail("evaluate: symbol " + e.name + " = " + std::to_string(it->second) +
           (lo == e.div ? " must be a positive multiple of " + std::to_string(e.div)
                        : " must be a multiple of " + std::to_string(e.div) + " and at least " + std::to_string(lo)));
    return it->second;
  }
  return fold(e.op, evaluate(e.a, env), evaluate(e.b, env));
}

void collect_symbols(const Int& x, std::map<std::string, int64_t>& out) {
  if (x.is_static()) return;
  const Expr& e = *x.expr();
  if (e.op == ExprOp::Symbol) {
    out[e.name] = e.div;
    return;
  }
  collect_symbols(e.a, out);
  collect_symbols(e.b, out);
}

std::string to_string(const Int& x, Notation notation) {
  if (notation == Notation::Expressions) return expr_string(x);
  std::string s;
  if (x.is_static()) {
    s = std::to_string(x.value());
  } else {
    s = "?";
    if (x.divisibility() > 1) s += "{div=" + std::to_string(x.divisibility()) + "}";
  }
  return s + basis_suffix(x.basis());
}

namespace {

// The pieces of expr_string(x): text, a number, or a node still to expand. Expanding node by
// node lets expr_string append in one pass and compare_expr_strings stop at the first difference
// (building the text by concatenation cost the square of the depth, and the canonical order
// compares on every + and *). Text views point at literals or at the symbols' names.
struct Piece {
  enum class Kind : uint8_t { Text, Number, Node } kind;
  std::string_view text = {};
  int64_t number = 0;
  const Int* node = nullptr;
};
Piece text(std::string_view t) { return {Piece::Kind::Text, t}; }
Piece number(int64_t v) { return {Piece::Kind::Number, {}, v}; }
Piece node_piece(const Int& x) { return {Piece::Kind::Node, {}, 0, &x}; }

// Pushes the pieces of x onto `stack` so that they pop in reading order.
void push_pieces(const Int& x, std::vector<Piece>& stack) {
  for (auto it = x.basis().rbegin(); it != x.basis().rend(); ++it) {  // @i@j...
    stack.push_back(number(*it));
    stack.push_back(text("@"));
  }
  if (x.is_static()) {
    stack.push_back(number(x.value()));
    return;
  }
  const Expr& e = *x.expr();
  switch (e.op) {
    case ExprOp::Symbol:
      stack.push_back(text(e.name));
      return;
    case ExprOp::CeilDiv:
    case ExprOp::Min:
    case ExprOp::Max:  // ceil_div(a,b)
      for (Piece p : {text(")"), node_piece(e.b), text(","), node_piece(e.a), text("("), text(op_name(e.op))})
        stack.push_back(p);
      return;
    case ExprOp::Add:  // x + -3 reads as (x-3)
      if (e.b.is_static() && e.b.value() < 0 && e.b.value() != INT64_MIN) {
        for (Piece p : {text(")"), number(-e.b.value()), text("-"), node_piece(e.a), text("(")}) stack.push_back(p);
        return;
      }
      [[fallthrough]];
    default:  // (a op b)
      for (Piece p : {text(")"), node_piece(e.b), text(op_name(e.op)), node_piece(e.a), text("(")})
        stack.push_back(p);
      return;
  }
}

// Reads expr_string(x) one character at a time.
class ExprText {
 public:
  explicit ExprText(const Int& x) { push_pieces(x, stack_); }
  // Whether the text still to read starts with a whole node not yet expanded; that node.
  const Int* pending_node() const {
    return !stack_.empty() && stack_.back().kind == Piece::Kind::Node ? stack_.back().node : nullptr;
  }
  void skip_node() { stack_.pop_back(); }
  int next() {  // the next character as unsigned char (std::string's order), or -1 at the end
    while (!stack_.empty()) {
      Piece& top = stack_.back();
      if (top.kind == Piece::Kind::Node) {
        const Int* n = top.node;
        stack_.pop_back();
        push_pieces(*n, stack_);
      } else if (top.kind == Piece::Kind::Number) {  // one number is read at a time: buf_ holds it
        auto [end, ec] = std::to_chars(buf_, buf_ + sizeof buf_, top.number);
        top = text(std::string_view(buf_, static_cast<size_t>(end - buf_)));
      } else if (top.text.empty()) {
        stack_.pop_back();
      } else {  // a text is dropped when its last character is read, so pending_node() sees on
        int c = static_cast<unsigned char>(top.text[at_++]);
        if (at_ == top.text.size()) {
          stack_.pop_back();
          at_ = 0;
        }
        return c;
      }
    }
    return -1;
  }

 private:
  std::vector<Piece> stack_;
  size_t at_ = 0;  // position in the text on top of the stack
  char buf_[24];
};

// The number of '(' that expr_string(x) opens with.
int64_t leading_parens(const Int& x) { return x.is_dynamic() ? x.expr()->open : 0; }

}  // namespace

std::string expr_string(const Int& x) { return expr_string(x, std::string::npos); }

std::string expr_string(const Int& x, size_t max_chars) {
  std::string s;
  std::vector<Piece> stack;
  push_pieces(x, stack);
  while (!stack.empty() && s.size() <= max_chars) {
    Piece p = stack.back();
    stack.pop_back();
    if (p.kind == Piece::Kind::Node)
      push_pieces(*p.node, stack);
    else if (p.kind == Piece::Kind::Number)
      s += std::to_string(p.number);
    else
      s += p.text;
  }
  if (s.size() > max_chars) {
    s.resize(max_chars);
    s += "...";
  }
  return s;
}

int compare_expr_strings(const Int& a, const Int& b) {
  // After its leading '(', a text goes on with a character above '(' (a name, a digit, '-', '?',
  // ceil_div/min/max): the text with more leading '(' is the smaller. Long sums and products
  // differ there, and are then ordered without reading their text.
  if (int64_t pa = leading_parens(a), pb = leading_parens(b); pa != pb) return pa > pb ? -1 : 1;
  ExprText x(a), y(b);
  for (;;) {
    // Equal subexpressions at the same place read alike: skip them whole (sums of products
    // share long operands; == is quick on shared or differently hashed nodes).
    const Int *p = x.pending_node(), *q = y.pending_node();
    if (p && q && *p == *q) {
      x.skip_node();
      y.skip_node();
      continue;
    }
    int c = x.next(), d = y.next();
    if (c != d) return c < d ? -1 : 1;
    if (c < 0) return 0;
  }
}

uint64_t hash_value(const Int& x) {
  uint64_t h = x.is_static() ? mix(0x5374617469630000ull, static_cast<uint64_t>(x.value())) : x.expr()->hash;
  for (int i : x.basis()) h = mix(h, static_cast<uint64_t>(i) + 1);
  return h;
}

}  // namespace tessel
