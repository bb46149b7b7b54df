// notation.cpp: parse_int_tuple, parse_layout, parse_tiler on top of the shared parser.
#include "tessel/algebra/notation.hpp"

#include "parser.hpp"

namespace tessel {

IntTuple parse_int_tuple(std::string_view text) {
  CalcValue v = detail::Parser(text).parse_all();
  if (auto* t = std::get_if<IntTuple>(&v)) return *t;
  fail("expected an int-tuple such as (4,(2,8)), got " + to_string(v));
}

Layout parse_layout(std::string_view text) {
  CalcValue v = detail::Parser(text).parse_all();
  if (auto* l = std::get_if<Layout>(&v)) return *l;
  fail("expected a layout SHAPE:STRIDE such as (4,8):(8,1), got " + to_string(v));
}

Tiler parse_tiler(std::string_view text) {
  CalcValue v = detail::Parser(text).parse_all();
  if (auto* t = std::get_if<Tiler>(&v)) return *t;
  if (auto* l = std::get_if<Layout>(&v)) return Tiler(*l);
  if (auto* s = std::get_if<IntTuple>(&v)) return Tiler::from_shape(*s);
  fail("expected a tiler such as <3:3,(2,4):(1,8)>, got " + to_string(v));
}

}  // namespace tessel
