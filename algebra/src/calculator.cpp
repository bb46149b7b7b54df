// calculator.cpp: the functions of `tessel layout`, by CuTe name, over parsed values.
#include "tessel/algebra/calculator.hpp"

#include <map>

#include "parser.hpp"

namespace tessel {

std::string to_string(const CalcValue& v, Notation notation) {
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>)
          return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, Swizzle> || std::is_same_v<T, SliceCoord>)
          return to_string(x);
        else
          return to_string(x, notation);
      },
      v);
}

namespace {

using Args = std::vector<CalcValue>;

const char* kind(const CalcValue& v) {
  switch (v.index()) {
    case 0:
      return "an int-tuple";
    case 1:
      return "a layout";
    case 2:
      return "a tiler";
    case 3:
      return "a swizzle";
    case 4:
      return "a composed layout";
    case 5:
      return "a TV layout";
    case 6:
      return "a slicing coordinate";
    default:
      return "a boolean";
  }
}

[[noreturn]] void wrong(const std::string& fn, size_t i, const char* expected, const CalcValue& got) {
  fail(fn + ": argument " + std::to_string(i + 1) + " must be " + expected + ", got " + kind(got) + " " +
       to_string(got));
}

Layout as_layout(const std::string& fn, const Args& a, size_t i) {
  if (auto* l = std::get_if<Layout>(&a[i])) return *l;
  if (auto* t = std::get_if<IntTuple>(&a[i])) return make_layout(*t);  // a shape: compact layout
  wrong(fn, i, "a layout", a[i]);
}

IntTuple as_tuple(const std::string& fn, const Args& a, size_t i) {
  if (auto* t = std::get_if<IntTuple>(&a[i])) {
    for (const Int& x : flatten_leaves(*t))  // c@i is a stride of an identity layout, never an extent
      if (x.has_basis()) fail(fn + ": argument " + std::to_string(i + 1) + " holds the basis element " + to_string(x));
    return *t;
  }
  wrong(fn, i, "an int-tuple", a[i]);
}

Int as_int(const std::string& fn, const Args& a, size_t i) {
  IntTuple t = as_tuple(fn, a, i);
  if (!t.is_leaf()) wrong(fn, i, "an integer", a[i]);
  return t.leaf();
}

int as_small(const std::string& fn, const Args& a, size_t i) {
  int64_t v = as_int(fn, a, i).value("index");
  if (v < -1000000 || v > 1000000) fail(fn + ": argument " + std::to_string(i + 1) + " is out of range");
  return static_cast<int>(v);
}

Tiler as_tiler(const std::string& fn, const Args& a, size_t i) {
  if (auto* t = std::get_if<Tiler>(&a[i])) return *t;
  if (auto* l = std::get_if<Layout>(&a[i])) return Tiler(*l);
  if (auto* s = std::get_if<IntTuple>(&a[i])) return Tiler::from_shape(*s);
  wrong(fn, i, "a tiler, a layout or a shape", a[i]);
}

SliceCoord as_slice(const std::string& fn, const Args& a, size_t i) {
  if (auto* c = std::get_if<SliceCoord>(&a[i])) return *c;
  if (auto* t = std::get_if<IntTuple>(&a[i])) {
    std::function<SliceCoord(const IntTuple&)> conv = [&](const IntTuple& x) -> SliceCoord {
      if (x.is_leaf()) return x.leaf();
      std::vector<SliceCoord> e;
      for (const auto& y : x.elems()) e.push_back(conv(y));
      return SliceCoord::tuple(std::move(e));
    };
    return conv(*t);
  }
  wrong(fn, i, "a coordinate", a[i]);
}

void arity(const std::string& fn, const Args& a, size_t lo, size_t hi) {
  if (a.size() < lo || a.size() > hi) {
    std::string n = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    fail(fn + " takes " + n + " argument" + (hi == 1 ? "" : "s") + ", got " + std::to_string(a.size()));
  }
}

// Checks that a static coordinate or index lies in the shape's domain.
void check_domain(const Layout& l, const IntTuple& c) {
  if (c.is_leaf()) {
    Int n = size(l);
    if (c.leaf().is_static() && n.is_static() && (c.leaf().value() < 0 || c.leaf().value() >= n.value()))
      fail("index " + to_string(c) + " is outside the domain [0," + to_string(n) + ") of " + to_string(l));
    return;
  }
  Coord crd = crd2crd(c, l.shape());
  std::vector<Int> xs = flatten_leaves(crd), ss = flatten_leaves(l.shape());
  for (size_t k = 0; k < xs.size(); ++k)
    if (xs[k].is_static() && ss[k].is_static() && (xs[k].value() < 0 || xs[k].value() >= ss[k].value()))
      fail("coordinate " + to_string(c) + " is outside the shape " + to_string(l.shape()));
}

using Fn = std::function<CalcValue(const std::string&, Args&)>;

template <class F>
Fn layout_fn(F f) {  // one layout argument
  return [f](const std::string& n, Args& a) -> CalcValue {
    arity(n, a, 1, 1);
    return f(as_layout(n, a, 0));
  };
}

template <class F>
Fn tiler_fn(F f) {  // a layout and a tiler
  return [f](const std::string& n, Args& a) -> CalcValue {
    arity(n, a, 2, 2);
    return f(as_layout(n, a, 0), as_tiler(n, a, 1));
  };
}

const std::map<std::string, Fn>& table() {
  static const std::map<std::string, Fn> t = {
      {"size", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 1);
         if (auto* c = std::get_if<ComposedLayout>(&a[0])) return IntTuple(size(*c));
         if (std::holds_alternative<IntTuple>(a[0])) return IntTuple(product(as_tuple(n, a, 0)));
         return IntTuple(size(as_layout(n, a, 0)));
       }},
      {"cosize", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 1);
         if (auto* c = std::get_if<ComposedLayout>(&a[0])) return IntTuple(cosize(*c));
         return IntTuple(cosize(as_layout(n, a, 0)));
       }},
      {"rank", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 1);
         if (auto* x = std::get_if<IntTuple>(&a[0])) return IntTuple(rank(*x));
         return IntTuple(rank(as_layout(n, a, 0)));
       }},
      {"depth", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 1);
         if (auto* x = std::get_if<IntTuple>(&a[0])) return IntTuple(depth(*x));
         return IntTuple(depth(as_layout(n, a, 0)));
       }},
      {"shape", layout_fn([](const Layout& l) -> CalcValue { return l.shape(); })},
      {"stride", layout_fn([](const Layout& l) -> CalcValue { return l.stride(); })},
      {"get", [](const std::string& n, Args& a) -> CalcValue {
         if (a.size() < 2) fail(n + " takes a layout or int-tuple and at least one mode index");
         std::vector<int> path;
         for (size_t i = 1; i < a.size(); ++i) path.push_back(as_small(n, a, i));
         if (auto* x = std::get_if<IntTuple>(&a[0])) {
           IntTuple r = *x;
           for (int i : path) r = IntTuple(r[i]);
           return r;
         }
         return get(as_layout(n, a, 0), path);
       }},
      {"coalesce", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 2);
         return a.size() == 1 ? coalesce(as_layout(n, a, 0)) : coalesce(as_layout(n, a, 0), as_tuple(n, a, 1));
       }},
      {"filter", layout_fn([](const Layout& l) -> CalcValue { return filter(l); })},
      {"flatten", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 1);
         if (auto* x = std::get_if<IntTuple>(&a[0])) return flatten(*x);
         return flatten(as_layout(n, a, 0));
       }},
      {"composition", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         if (auto* s = std::get_if<Swizzle>(&a[0])) return composition(*s, as_layout(n, a, 1));
         if (auto* c = std::get_if<ComposedLayout>(&a[0])) return composition(*c, as_tiler(n, a, 1));
         return composition(as_layout(n, a, 0), as_tiler(n, a, 1));
       }},
      {"complement", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 2);
         return a.size() == 1 ? complement(as_layout(n, a, 0)) : complement(as_layout(n, a, 0), as_int(n, a, 1));
       }},
      {"right_inverse", layout_fn([](const Layout& l) -> CalcValue { return right_inverse(l); })},
      {"left_inverse", layout_fn([](const Layout& l) -> CalcValue { return left_inverse(l); })},
      {"logical_divide", tiler_fn([](const Layout& l, const Tiler& t) -> CalcValue { return logical_divide(l, t); })},
      {"zipped_divide", tiler_fn([](const Layout& l, const Tiler& t) -> CalcValue { return zipped_divide(l, t); })},
      {"tiled_divide", tiler_fn([](const Layout& l, const Tiler& t) -> CalcValue { return tiled_divide(l, t); })},
      {"flat_divide", tiler_fn([](const Layout& l, const Tiler& t) -> CalcValue { return flat_divide(l, t); })},
      {"logical_product", tiler_fn([](const Layout& l, const Tiler& t) -> CalcValue { return logical_product(l, t); })},
      {"zipped_product", tiler_fn([](const Layout& l, const Tiler& t) -> CalcValue { return zipped_product(l, t); })},
      {"tiled_product", tiler_fn([](const Layout& l, const Tiler& t) -> CalcValue { return tiled_product(l, t); })},
      {"flat_product", tiler_fn([](const Layout& l, const Tiler& t) -> CalcValue { return flat_product(l, t); })},
      {"blocked_product", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         if (auto* c = std::get_if<ComposedLayout>(&a[0])) return blocked_product(*c, as_layout(n, a, 1));
         return blocked_product(as_layout(n, a, 0), as_layout(n, a, 1));
       }},
      {"raked_product", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return raked_product(as_layout(n, a, 0), as_layout(n, a, 1));
       }},
      {"make_layout", [](const std::string& n, Args& a) -> CalcValue {
         if (a.empty()) fail(n + " takes a shape [and a stride], or layouts to concatenate");
         bool all_layouts = true;
         for (const auto& v : a) all_layouts = all_layouts && std::holds_alternative<Layout>(v);
         if (all_layouts) {
           std::vector<Layout> modes;
           for (const auto& v : a) modes.push_back(std::get<Layout>(v));
           return make_layout(modes);
         }
         arity(n, a, 1, 2);
         return a.size() == 1 ? make_layout(as_tuple(n, a, 0)) : make_layout(as_tuple(n, a, 0), as_tuple(n, a, 1));
       }},
      {"make_ordered_layout", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return make_ordered_layout(as_tuple(n, a, 0), as_tuple(n, a, 1));
       }},
      {"make_identity_layout", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 1);
         return make_identity_layout(as_tuple(n, a, 0));
       }},
      {"make_layout_tv", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return make_layout_tv(as_layout(n, a, 0), as_layout(n, a, 1));
       }},
      {"tile_to_shape", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 3);
         std::optional<IntTuple> order;
         if (a.size() == 3) order = as_tuple(n, a, 2);
         if (auto* c = std::get_if<ComposedLayout>(&a[0])) return tile_to_shape(*c, as_tuple(n, a, 1), order);
         return tile_to_shape(as_layout(n, a, 0), as_tuple(n, a, 1), order);
       }},
      {"crd2idx", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 3);
         if (a.size() == 3) return crd2idx(as_tuple(n, a, 0), as_tuple(n, a, 1), as_tuple(n, a, 2));
         Layout l = as_layout(n, a, 1);
         return crd2idx(as_tuple(n, a, 0), l.shape(), l.stride());
       }},
      {"idx2crd", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return idx2crd(as_int(n, a, 0), as_tuple(n, a, 1));
       }},
      {"slice", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         if (auto* c = std::get_if<ComposedLayout>(&a[1])) return slice(as_slice(n, a, 0), *c);
         return slice(as_slice(n, a, 0), as_layout(n, a, 1));
       }},
      {"dice", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return dice(as_slice(n, a, 0), as_layout(n, a, 1));
       }},
      {"append", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return append(as_layout(n, a, 0), as_layout(n, a, 1));
       }},
      {"prepend", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return prepend(as_layout(n, a, 0), as_layout(n, a, 1));
       }},
      {"group", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 3, 3);
         return group(as_layout(n, a, 0), as_small(n, a, 1), as_small(n, a, 2));
       }},
      {"congruent", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return congruent(as_tuple(n, a, 0), as_tuple(n, a, 1));
       }},
      {"compatible", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return compatible(as_tuple(n, a, 0), as_tuple(n, a, 1));
       }},
      {"product_each", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 1, 1);
         return product_each(as_tuple(n, a, 0));
       }},
      {"ceil_div", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return ceil_div(as_tuple(n, a, 0), as_tuple(n, a, 1));
       }},
      {"shape_div", [](const std::string& n, Args& a) -> CalcValue {
         arity(n, a, 2, 2);
         return shape_div(as_tuple(n, a, 0), as_tuple(n, a, 1));
       }},
  };
  return t;
}

// L(c): a layout, composed layout or swizzle applied to a coordinate (the parser's postfix call).
CalcValue apply(const CalcValue& f, const IntTuple& c) {
  if (auto* s = std::get_if<Swizzle>(&f)) {
    if (!c.is_leaf()) fail("a swizzle applies to an integer offset, got " + to_string(c));
    if (c.leaf().is_static() && c.leaf().value() < 0)
      fail("a swizzle applies to a non-negative offset, got " + to_string(c));
    return IntTuple((*s)(c.leaf()));
  }
  if (auto* cl = std::get_if<ComposedLayout>(&f)) {
    check_domain(cl->layout, c);
    return (*cl)(c);
  }
  if (auto* l = std::get_if<Layout>(&f)) {
    check_domain(*l, c);
    return (*l)(c);
  }
  fail(std::string("only a layout, a composed layout or a swizzle can be applied to a coordinate, not ") + kind(f));
}

}  // namespace

CalcValue evaluate_expression(std::string_view text) {
  detail::Parser parser(
      text,
      [](const std::string& name, Args& args) -> CalcValue {
        auto it = table().find(name);
        if (it == table().end()) fail("unknown function '" + name + "'");
        return it->second(name, args);
      },
      apply);
  return parser.parse_all();
}

CalcValue evaluate(const CalcValue& v, const Env& env) {
  if (auto* t = std::get_if<IntTuple>(&v)) return evaluate(*t, env);
  if (auto* l = std::get_if<Layout>(&v)) return evaluate(*l, env);
  if (auto* tv = std::get_if<TVLayout>(&v)) return TVLayout{evaluate(tv->tiler, env), evaluate(tv->layout, env)};
  if (auto* c = std::get_if<ComposedLayout>(&v))
    return ComposedLayout{c->swizzle, Int(evaluate(c->offset, env)), evaluate(c->layout, env)};
  if (auto* t = std::get_if<Tiler>(&v)) {
    std::vector<Layout> modes;
    for (const auto& m : t->modes()) modes.push_back(evaluate(m, env));
    return t->by_mode() ? Tiler(std::move(modes)) : Tiler(modes[0]);
  }
  return v;
}

std::string calculate(std::string_view text) { return to_string(evaluate_expression(text)); }

std::vector<std::string> calculator_functions() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : table()) names.push_back(name);
  return names;
}

}  // namespace tessel
