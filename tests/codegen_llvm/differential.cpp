// differential.cpp: see differential.hpp.
#include "codegen_llvm/differential.hpp"

#include <regex>
#include <set>
#include <sstream>

#include "codegen/ptxas.hpp"

namespace tessel::test {

namespace {

int first_number(const std::string& log, const std::string& pattern, int otherwise) {
  std::smatch m;
  if (std::regex_search(log, m, std::regex(pattern))) return std::stoi(m[1].str());
  return otherwise;
}

}  // namespace

PtxasReport assemble(const std::string& ptx, const std::string& target) {
  const PtxasResult r = run_ptxas(ptx, target);
  PtxasReport p;
  p.ok = r.ok;
  p.log = r.log;
  p.registers = first_number(r.log, R"(Used (\d+) registers)", -1);
  p.shared_bytes = first_number(r.log, R"((\d+) bytes smem)", 0);
  p.spill_stores = first_number(r.log, R"((\d+) bytes spill stores)", -1);
  p.spill_loads = first_number(r.log, R"((\d+) bytes spill loads)", -1);
  p.stack_bytes = first_number(r.log, R"((\d+) bytes stack frame)", -1);
  return p;
}

std::vector<std::string> entry_params(const std::string& ptx) {
  std::vector<std::string> out;
  const size_t entry = ptx.find(".entry");
  if (entry == std::string::npos) return out;
  const size_t open = ptx.find('(', entry), close = ptx.find(')', entry);
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::stringstream list(ptx.substr(open + 1, close - open - 1));
  std::string item;
  while (std::getline(list, item, ',')) {
    std::stringstream words(item);
    std::string w, norm, name;
    std::vector<std::string> parts;
    while (words >> w) parts.push_back(w);
    for (size_t j = 0; j < parts.size(); ++j) {
      const std::string& x = parts[j];
      if (x == ".param") continue;
      if (x == ".ptr") {  // .ptr [.space] [.align N]: LLVM's pointer hints
        while (j + 1 < parts.size() && (parts[j + 1] == ".global" || parts[j + 1] == ".shared" || parts[j + 1] == ".const" ||
                                        parts[j + 1] == ".local"))
          ++j;
        if (j + 2 < parts.size() && parts[j + 1] == ".align") j += 2;
        continue;
      }
      if (x == ".align") {
        norm += " .align " + parts.at(j + 1);
        ++j;
        continue;
      }
      if (x[0] == '.') {
        // A scalar's type as its width: LLVM declares an s32 parameter .u32 (and an f32 one may be
        // .b32), which passes the same four bytes.
        static const std::regex scalar(R"(\.[usbf](8|16|32|64))");
        std::smatch m;
        norm += " " + (std::regex_match(x, m, scalar) ? ".b" + m[1].str() : x);
        continue;
      }
      // The name, with an array size when it has one: keep the size.
      const size_t bracket = x.find('[');
      if (bracket != std::string::npos) norm += " " + x.substr(bracket);
    }
    if (!norm.empty()) out.push_back(norm.substr(1));
  }
  return out;
}

std::string external_calls(const std::string& ptx) {
  if (ptx.find(".extern .func") != std::string::npos) return "it declares an .extern .func";
  std::set<std::string> defined;
  const std::regex def(R"(\.(?:func|entry)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*))");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), def); it != std::sregex_iterator(); ++it)
    defined.insert((*it)[1].str());
  const std::regex call(R"(\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][\w$]*))");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), call); it != std::sregex_iterator(); ++it) {
    if (!defined.count((*it)[1].str())) return "it calls " + (*it)[1].str() + ", which it does not define";
  }
  return "";
}

}  // namespace tessel::test
