// Uses only the installed public header and the tessel::algebra target.
#include <iostream>
#include <tessel/algebra.hpp>

int main() {
  tessel::Layout L = tessel::parse_layout("(4,8):(8,1)");
  std::cout << tessel::to_string(tessel::coalesce(L)) << "\n";
  return tessel::to_string(L) == "(4,8):(8,1)" ? 0 : 1;
}
