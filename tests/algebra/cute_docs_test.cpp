// cute_docs_test.cpp: the worked examples of CuTe's layout-algebra documentation
// (media/docs/cpp/cute/02_layout_algebra.md) and of the issue, exactly as printed there.
#include "support.hpp"

using namespace tessel;

TEST_CASE("cute docs: coalesce") {
  CHECK(calculate("coalesce((2,(1,6)):(1,(6,2)))") == "12:1");
  CHECK(calculate("coalesce((2,(1,6)):(1,(6,2)),(1,1))") == "(2,6):(1,2)");
}

TEST_CASE("cute docs: composition") {
  CHECK(calculate("composition((6,2):(8,2),(4,3):(3,1))") == "((2,2),3):((24,2),8)");
  CHECK(calculate("composition(20:2,(5,4):(4,1))") == "(5,4):(8,2)");
  CHECK(calculate("composition((10,2):(16,4),(5,4):(1,5))") == "(5,(2,2)):(16,(80,4))");
  // By-mode composition with a tiler and with a shape.
  CHECK(calculate("composition((12,(4,8)):(59,(13,1)),<3:4,8:2>)") == "(3,(2,4)):(236,(26,1))");
  CHECK(calculate("composition((12,(4,8)):(59,(13,1)),(3,8))") == "(3,(4,2)):(59,(13,1))");
}

TEST_CASE("cute docs: complement") {
  CHECK(calculate("complement(4:1,24)") == "6:4");
  CHECK(calculate("complement(6:4,24)") == "4:1");
  CHECK(calculate("complement((4,6):(1,4),24)") == "1:0");
  CHECK(calculate("complement(4:2,24)") == "(2,3):(1,8)");
  CHECK(calculate("complement((2,4):(1,6),24)") == "3:2");
  CHECK(calculate("complement((2,2):(1,6),24)") == "(3,2):(2,12)");
}

TEST_CASE("cute docs: divides") {
  CHECK(calculate("logical_divide((4,2,3):(2,1,8),4:2)") == "((2,2),(2,3)):((4,1),(2,8))");
  CHECK(calculate("logical_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)") ==
        "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  CHECK(calculate("zipped_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)") ==
        "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  CHECK(calculate("tiled_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)") ==
        "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  CHECK(calculate("flat_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)") ==
        "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
}

TEST_CASE("cute docs: products") {
  CHECK(calculate("logical_product((2,2):(4,1),6:1)") == "((2,2),(2,3)):((4,1),(2,8))");
  // blocked/raked of (2,5):(5,1) by (3,4):(1,3): each mode is coalesced, as CuTe does.
  CHECK(calculate("blocked_product((2,5):(5,1),(3,4):(1,3))") == "(6,(5,4)):(5,(1,30))");
  CHECK(calculate("raked_product((2,5):(5,1),(3,4):(1,3))") == "((3,2),(4,5)):((10,5),(30,1))");
}

TEST_CASE("issue: make_layout_tv example") {
  CHECK(calculate("make_layout_tv((4,32):(32,1),(4,4):(4,1))") == "(16,128) ((32,4),(4,4)):((64,4),(16,1))");
  CHECK(calculate("make_ordered_layout((4,32),(1,0))") == "(4,32):(32,1)");
}
