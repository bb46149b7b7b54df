// int.hpp: Int, the one integer type of the algebra: static (known while generating) or dynamic
// (a symbolic expression over values known only when a kernel runs).
#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessel/algebra/error.hpp"

namespace tessel {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// A basis path: empty for a plain integer; {i} for the basis element e_i (CuTe's E<i>); {i,j}
// for e_j inside mode i. Strides of identity layouts are scaled basis elements, so that the
// layout maps a coordinate to that coordinate.
using BasisPath = std::vector<int>;

// Values given to symbols when a dynamic Int is evaluated, by symbol name.
using Env = std::map<std::string, int64_t>;

class Int {
 public:
  Int() = default;
  template <std::integral T>
  Int(T v) : value_(static_cast<int64_t>(v)) {}  // NOLINT: static integers convert implicitly

  // A dynamic value named `name`, known to be a positive multiple of `divisibility`. An empty
  // name makes a fresh anonymous symbol (`?` in CuTe notation; `?<serial>` in expressions).
  static Int symbol(std::string name, int64_t divisibility = 1);
  // The same with a known lower bound instead of positivity (0 for a thread index).
  static Int symbol(std::string name, int64_t divisibility, int64_t lower_bound);
  // An anonymous symbol that prints as `?<index>` in expressions (the parser numbers the `?` of
  // one input from 0, so a line prints the same whatever came before it) and equals only itself.
  static Int anonymous(int64_t index, int64_t divisibility);
  static Int from_expr(ExprPtr e);  // internal: wraps a node built by the simplifier

  bool is_static() const { return !expr_; }
  bool is_dynamic() const { return static_cast<bool>(expr_); }
  // The static value; throws naming `what` and the expression when the value is dynamic.
  // Inline: the algebra reads static values in its inner loops (crd2idx, sizes).
  int64_t value(const char* what = "value") const {
    if (expr_) [[unlikely]]
      not_static(what);
    return value_;
  }
  std::optional<int64_t> static_value() const;
  // Largest known divisor (|v| for static v; 0 means "divisible by every integer", i.e. v = 0).
  int64_t divisibility() const;
  std::optional<int64_t> lower_bound() const;
  const ExprPtr& expr() const { return expr_; }

  const BasisPath& basis() const { return basis_; }
  bool has_basis() const { return !basis_.empty(); }
  Int with_basis(BasisPath path) const;
  Int coefficient() const;  // the value without its basis element

 private:
  [[noreturn]] void not_static(const char* what) const;  // value()'s refusal, out of line

  int64_t value_ = 0;
  ExprPtr expr_;
  BasisPath basis_;
};

enum class ExprOp : uint8_t { Symbol, Add, Sub, Mul, Div, Mod, CeilDiv, Min, Max, And, Xor, Shr, Shl };

// A node of the expression graph of dynamic values. Nodes are immutable and shared.
struct Expr {
  ExprOp op = ExprOp::Symbol;
  std::string name;           // Symbol only
  uint64_t serial = 0;        // Symbol only: tells apart anonymous symbols that print alike (0: named)
  uint64_t hash = 0;          // of the structure (op, operands, name, serial): equal nodes hash alike
  int64_t open = 0;           // the number of '(' that expr_string opens with (compare_expr_strings)
  Int a, b;                   // operands (one of them may be static)
  int64_t div = 1;            // known positive divisor of the value
  std::optional<int64_t> lo;  // known lower bound of the value
};

// Arithmetic: static operands fold (with overflow checked), dynamic ones build a simplified
// expression. Division and remainder truncate toward zero, as in C++ and PTX.
Int operator+(const Int& a, const Int& b);
Int operator-(const Int& a, const Int& b);
Int operator-(const Int& a);
Int operator*(const Int& a, const Int& b);
Int operator/(const Int& a, const Int& b);
Int operator%(const Int& a, const Int& b);
Int ceil_div(const Int& a, const Int& b);
Int min(const Int& a, const Int& b);
Int max(const Int& a, const Int& b);
Int bit_and(const Int& a, const Int& b);
Int bit_xor(const Int& a, const Int& b);
Int shift_right(const Int& a, const Int& b);
Int shift_left(const Int& a, const Int& b);

// Structural equality: true when both are the same value for every value of the symbols that
// the simplifier can see (static values equal, or identical expressions).
bool operator==(const Int& a, const Int& b);
// The same for two expression nodes (what == compares of two dynamic Ints without basis).
bool same_expr(const Expr& x, const Expr& y);

// What is provable from static values, divisibility and lower bounds (nullopt: unknown).
bool provably_divides(const Int& d, const Int& x);  // d | x
std::optional<bool> known_less_equal(const Int& a, const Int& b);

// The value under an assignment of the symbols; throws for a missing symbol, a value that breaks
// the symbol's divisibility, overflow or division by zero.
int64_t evaluate(const Int& x, const Env& env);
// The symbols that x depends on, by name, with their divisibility.
void collect_symbols(const Int& x, std::map<std::string, int64_t>& out);

// How dynamic leaves print: CuTe's `?` / `?{div=16}`, or their whole expression `ceil_div(M,16)`.
enum class Notation { Cute, Expressions };

// CuTe notation: `42`, `?`, `?{div=16}`, `1@0`.
std::string to_string(const Int& x, Notation notation = Notation::Cute);
// The whole expression: `ceil_div(M,128)`.
std::string expr_string(const Int& x);
// The same cut after max_chars characters, with `...` added where it was cut.
std::string expr_string(const Int& x, size_t max_chars);
// expr_string(a) <=> expr_string(b) without building either: costs their common prefix, not their
// size. The canonical order of the operands of + and *, and so deterministic.
int compare_expr_strings(const Int& a, const Int& b);
// A hash of x's structure (static value, expression and basis), consistent with ==.
uint64_t hash_value(const Int& x);

// Checked 64-bit arithmetic on static values; throws Error naming the operation on overflow.
int64_t checked_add(int64_t a, int64_t b);
int64_t checked_mul(int64_t a, int64_t b);

}  // namespace tessel
