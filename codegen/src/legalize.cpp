// legalize.cpp: checks a kernel (each instruction's operands against its row's signature, registers,
// predicates) and flattens structured control flow (if/else, while loops) into labels and
// branches, the form the printer and the emulator read. The walk itself is flatten.hpp's.
#include "tessel/codegen/legalize.hpp"

#include <functional>
#include <vector>

#include "flatten.hpp"

namespace tessel::codegen {

void for_each_legalized(const Kernel& k, const std::function<void(const Instr&)>& visit) {
  detail::flatten(k, visit);
}

std::vector<Instr> legalize(const Kernel& k) {
  std::vector<Instr> out;
  for_each_legalized(k, [&](const Instr& i) { out.push_back(i); });
  return out;
}

}  // namespace tessel::codegen
