// oracle_test.cpp: the reference cases of shared/oracle (computed by the public reference
// implementation of the CuTe algebra), judged by the rule of their `check` column.
#include <fstream>
#include <sstream>

#include "support.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

struct Case {
  std::string check, expr, expected, arg;
  int line;
};

std::vector<Case> load_cases() {
  std::ifstream in(TESSEL_TEST_DATA_DIR "/layout-algebra-cases.tsv");
  REQUIRE_MESSAGE(in.good(), "missing tests/data/layout-algebra-cases.tsv");
  std::vector<Case> cases;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) f.push_back(field);
    f.resize(4);
    cases.push_back({f[0], f[1], f[2], f[3], n});
  }
  return cases;
}

// Same rank, and each top-level mode the same function.
bool same_modes(const Layout& r, const Layout& e) {
  if (r.rank() != e.rank()) return false;
  for (int i = 0; i < r.rank(); ++i)
    if (!same_function(r[i], e[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("oracle: every reference case holds") {
  std::vector<Case> cases = load_cases();
  CHECK(cases.size() == 325);
  std::map<std::string, int> passed;
  for (const Case& c : cases) {
    INFO("line " << c.line << ": " << c.check << " " << c.expr << " expected " << c.expected);
    CalcValue v;
    REQUIRE_NOTHROW(v = evaluate_expression(c.expr));
    if (c.check == "exact") {
      CHECK(to_string(v) == c.expected);
    } else if (c.check == "func" || c.check == "modes") {
      Layout r = std::get<Layout>(v), e = parse_layout(c.expected);
      bool ok = c.check == "func" ? same_function(r, e) : same_modes(r, e);
      CHECK(ok);
    } else if (c.check == "compose") {
      Layout r = std::get<Layout>(v);
      std::string a_text = c.arg.substr(0, c.arg.find(' ')), b_text = c.arg.substr(c.arg.find(' ') + 1);
      Layout a = parse_layout(a_text), b = parse_layout(b_text);
      CHECK(compatible(b.shape(), r.shape()));
      for (int64_t i = 0; i < size(b).value(); ++i) CHECK(at(r, i) == at(a, at(b, i)));
    } else if (c.check == "leftinv") {
      Layout r = std::get<Layout>(v), a = parse_layout(c.arg);
      for (int64_t i = 0; i < size(a).value(); ++i) CHECK(at(r, at(a, i)) == i);
    } else if (c.check == "tv") {
      TVLayout r = std::get<TVLayout>(v);
      CHECK(to_string(r.tiler) == c.arg);
      CHECK(same_modes(r.layout, parse_layout(c.expected)));
    } else {
      FAIL("unknown check " << c.check);
    }
    ++passed[c.check];
  }
  CHECK(passed.size() == 6);  // every kind of check was exercised
}
