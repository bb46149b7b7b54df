// notation_test.cpp: printing in CuTe notation and reading it back; errors name the column.
#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

TEST_CASE("notation: print then parse gives back the same layout") {
  TESSEL_RNG(rng);
  for (int i = 0; i < 2000; ++i) {
    Layout l = random_layout(rng, 3, 3);
    CHECK(parse_layout(to_string(l)) == l);
    CHECK(parse_int_tuple(to_string(l.shape())) == l.shape());
  }
  CHECK(to_string(parse_layout("((2,2),3):((24,2),8)")) == "((2,2),3):((24,2),8)");
  CHECK(to_string(parse_layout(" ( 4 , 8 ) : ( 8 , 1 ) ")) == "(4,8):(8,1)");
  CHECK(to_string(parse_int_tuple("(2)")) == "(2)");  // a rank-1 tuple is not the integer 2
  CHECK(parse_int_tuple("(2)") != parse_int_tuple("2"));
  CHECK(to_string(parse_int_tuple("()")) == "()");
  CHECK(to_string(parse_tiler("<3:3,(2,4):(1,8)>")) == "<3:3,(2,4):(1,8)>");
  CHECK(to_string(parse_tiler("(2,4)")) == "<2:1,4:1>");
}

TEST_CASE("notation: dynamic leaves") {
  Layout l = parse_layout("(?,?{div=16}):(1,?)");
  CHECK(to_string(l) == "(?,?{div=16}):(1,?)");
  CHECK(l.shape()[1].leaf().divisibility() == 16);
  // Named symbols are the same symbol wherever they appear in one input.
  Layout m = parse_layout("(M,N):(1,M)");
  CHECK(m.stride()[1].leaf() == m.shape()[0].leaf());
  CHECK(to_string(coalesce(m)) == "?:1");
}

TEST_CASE("notation: dynamic leaves print as expressions on request, and evaluate") {
  CalcValue z = evaluate_expression("zipped_divide((M,N):(N,1),(16,128))");
  CHECK(to_string(z) == "((16,128),(?,?)):((?,1),(?{div=16},128))");
  CHECK(to_string(z, Notation::Expressions) == "((16,128),(ceil_div(M,16),ceil_div(N,128))):((N,1),((N*16),128))");
  CHECK(to_string(evaluate(z, {{"M", 1000}, {"N", 64}})) == "((16,128),(63,1)):((64,1),(1024,128))");
  CalcValue tv = evaluate_expression("make_layout_tv((4,32):(32,1),(4,4):(4,1))");
  CHECK(to_string(evaluate(tv, {})) == to_string(tv));  // static values are their own evaluation
  CHECK_THROWS_WITH_AS(evaluate(evaluate_expression("(?,4):(1,?)"), {}), doctest::Contains("anonymous ?"), Error);
}

TEST_CASE("notation: anonymous ? print by their place in one input, and stay distinct across inputs") {
  // ?0, ?1 in order of appearance, whatever was parsed before.
  for (int i = 0; i < 3; ++i)
    CHECK(to_string(evaluate_expression("make_layout((?,?))"), Notation::Expressions) == "(?0,?1):(1,?0)");
  Layout a = parse_layout("?:1"), b = parse_layout("?:1");
  CHECK(to_string(a, Notation::Expressions) == to_string(b, Notation::Expressions));
  CHECK_FALSE(a.shape() == b.shape());  // two inputs' ?0 are two unknowns
  CHECK_FALSE((size(a) - size(b)) == Int(0));
  CHECK(size(a) - size(a) == Int(0));
}

TEST_CASE("notation: an empty shape is no tiler, as `<>` is none") {
  CHECK_THROWS_WITH_AS(parse_tiler("()"), doctest::Contains("a tiler needs at least one mode"), Error);
  CHECK_THROWS_WITH_AS(parse_tiler("<>"), doctest::Contains("col 2: unexpected '>'"), Error);
  CHECK_THROWS_WITH_AS(calculate("zipped_divide(4:1,())"), doctest::Contains("a tiler needs at least one mode"), Error);
}

TEST_CASE("notation: a dynamic coefficient of a basis stride reads back as printed") {
  // logical_divide(8:4@2,M) prints the stride ?{div=4}@2: the grammar takes what the algebra prints.
  const std::string printed = calculate("logical_divide(8:4@2,M)");
  CHECK(printed == "(?,?):(4@2,?{div=4}@2)");
  CHECK(calculate(printed) == printed);
  CHECK(calculate("(2,3):(M@0,1@1)((1,2))") == "(?,2)");
}

TEST_CASE("notation: syntax errors name the column") {
  CHECK_THROWS_WITH_AS(parse_layout("(4,8):(8"), doctest::Contains("col 9: expected ')'"), Error);
  CHECK_THROWS_WITH_AS(parse_layout("(4,8)x"), doctest::Contains("col 6: unexpected 'x'"), Error);
  CHECK_THROWS_WITH_AS(parse_layout("(4,8)"), doctest::Contains("expected a layout"), Error);
  CHECK_THROWS_WITH_AS(parse_int_tuple("99999999999999999999"), doctest::Contains("does not fit in 64 bits"), Error);
  CHECK_THROWS_WITH_AS(parse_layout("coalesce(4:1)"), doctest::Contains("calls are not allowed"), Error);
  CHECK_THROWS_WITH_AS(parse_int_tuple(std::string(200, '(') + "1" + std::string(200, ')')),
                       doctest::Contains("nesting deeper than 64"), Error);
  CHECK_THROWS_WITH_AS(parse_int_tuple("?{div=0}"), doctest::Contains("divisibility must be positive"), Error);
  CHECK_THROWS_WITH_AS(parse_int_tuple("(M{div=4},M{div=8})"),
                       doctest::Contains("col 11: symbol M is declared with div=4 and div=8"), Error);
  CHECK(parse_int_tuple("(M{div=4},M)")[1].leaf().divisibility() == 4);
  CHECK_THROWS_WITH_AS(parse_tiler(std::string(5000, '<') + "1:1" + std::string(5000, '>')),
                       doctest::Contains("nesting deeper than 64"), Error);
  CHECK_THROWS_WITH_AS(parse_layout(std::string("4:1\0x", 5)), doctest::Contains("unexpected '\\x00'"), Error);
}

TEST_CASE("calculator: calls nest, and errors say which call failed") {
  CHECK(calculate("size(zipped_divide((8,12):(12,1),(4,4)))") == "96");
  CHECK(calculate("shape(composition((6,2):(8,2),(4,3):(3,1)))") == "((2,2),3)");
  CHECK(calculate("(4,8):(8,1)(5)") == "9");  // index 5 is the coordinate (1,1)
  CHECK(calculate("(4,8):(8,1)((1,2))") == "10");
  CHECK(calculate("slice((_,2),(4,8):(8,1))") == "(4):(8)");
  CHECK(calculate("dice((_,2),(4,8):(8,1))") == "(8):(1)");
  CHECK_THROWS_WITH_AS(calculate("slice((5,_),(4,8):(8,1))"), doctest::Contains("coordinate 5 is outside the mode 4"),
                       Error);
  CHECK(calculate("tile_to_shape(2:1,8)") == "8:1");
  CHECK(calculate("coalesce(4:1,(1))") == "4:1");
  CHECK(calculate("congruent((2,(3,4)),(1,(1,1)))") == "true");
  CHECK(calculate("compatible(24,(2,(3,4)))") == "true");
  CHECK(calculate("Sw<3,4,3>(200)") == std::to_string(Swizzle(3, 4, 3)(Int(200)).value()));
  CHECK_THROWS_WITH_AS(calculate("coalesce(composition(4:1,3:2),(1,1,1))"), doctest::Contains("col 1: coalesce"),
                       Error);
  CHECK_THROWS_WITH_AS(calculate("size(composition((4,6):(1,8),6:1))"), doctest::Contains("col 6: composition"), Error);
  CHECK_THROWS_WITH_AS(calculate("nosuch(4:1)"), doctest::Contains("unknown function 'nosuch'"), Error);
  CHECK_THROWS_WITH_AS(calculate("shape_div(12,0)"), doctest::Contains("division by zero"), Error);
  CHECK_THROWS_WITH_AS(calculate("size(1@0)"), doctest::Contains("holds the basis element 1@0"), Error);
  CHECK_THROWS_WITH_AS(calculate("Sw<3,4,3>(-1)"), doctest::Contains("non-negative offset"), Error);
  CHECK_THROWS_WITH_AS(calculate("Sw<64,0,0>"), doctest::Contains("B+M+|S| <= 62"), Error);
  CHECK_THROWS_WITH_AS(calculate("(4,8):(8,1)(32)"), doctest::Contains("outside the domain [0,32)"), Error);
  CHECK_THROWS_WITH_AS(calculate("complement(4:1,(2,2))"), doctest::Contains("must be an integer"), Error);
  CHECK_THROWS_WITH_AS(calculate("zipped_divide(8:1,<2:1,2:1>)"), doctest::Contains("rank 2, higher than the rank 1"),
                       Error);
}
