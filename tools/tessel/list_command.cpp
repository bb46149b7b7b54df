// list_command.cpp: `tessel list`: the catalog's kernels (kernels/catalog.hpp) with their metadata,
// selected by the catalog's own filters (metadata_filter), one line each in aligned columns.
#include "list_command.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <optional>

#include "printable.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/kernels/catalog.hpp"

namespace tessel::cli {

namespace {

const char* const kKeys[] = {"kind",  "operation", "class",  "name",   "dtype",
                             "major", "tile-m",    "tile-n", "tile-k", "min-cc"};

std::string shape(const std::array<int, 3>& s) {
  return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
}

std::vector<std::string> columns(const kernels::KernelMetadata& md) {
  std::string types, majors;
  for (size_t i = 0; i < md.operands.size(); ++i) {
    const kernels::OperandAttributes& o = md.operands[i];
    // A,B -> out: the last operand is the output.
    types += (i == 0 ? "" : i + 1 == md.operands.size() ? "->" : ",") + std::string(codegen::ptx_name(o.dtype));
    majors += (i == 0 ? "" : ",") + std::string(kernels::major_name(o.major));
  }
  types += " acc " + std::string(codegen::ptx_name(md.accumulator));
  return {md.name,
          kernels::operation_name(md.operation),
          types,
          majors,
          shape(md.design.tile),
          shape(md.design.cluster),
          "sm_" + std::to_string(md.min_cc)};
}

}  // namespace

void print_list_help(std::ostream& out) {
  out << "usage: tessel list [--filter KEY=VALUE ...] [--KEY VALUE ...] [--cc N]\n"
         "\n"
         "Prints the kernel catalog: one line per kernel with its name, operation, types\n"
         "(inputs -> output, accumulator), the majors of its operands, its tile and cluster shape\n"
         "and the lowest compute capability that runs it. Every filter must hold.\n"
         "\n"
         "  --filter KEY=VALUE   keep the kernels whose metadata matches; --KEY VALUE is the same\n"
         "  --cc N               keep the kernels that run on compute capability N (e.g. 80, 90)\n"
         "\n"
         "keys:\n"
         "  kind (or operation)  gemm, elementwise, demo\n"
         "  class                the kernel class, e.g. simt_gemm\n"
         "  name                 a part of the kernel's name\n"
         "  dtype                an operand's or the accumulator's type, e.g. f64, bf16\n"
         "  major                every operand's major: row, col or any\n"
         "  tile-m, tile-n, tile-k   the tile's extent\n"
         "  min-cc               kernels whose minimum compute capability is at most this\n";
}

int list_command(const std::vector<std::string>& args) {
  std::vector<kernels::MetadataFilter> filters;
  std::optional<int> cc;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "-h" || a == "--help") {
        print_list_help(std::cout);
        return 0;
      }
      if (a.rfind("--", 0) != 0) {
        std::cerr << "error: unexpected argument '" << printable(a) << "' (tessel list takes options only)\n";
        return 2;
      }
      if (i + 1 >= args.size()) {
        std::cerr << "error: " << printable(a) << " needs a value\n";
        return 2;
      }
      const std::string& value = args[++i];
      if (a == "--filter") {
        const size_t eq = value.find('=');
        if (eq == std::string::npos) {
          std::cerr << "error: --filter " << printable(value) << ": expected KEY=VALUE\n";
          return 2;
        }
        filters.push_back(kernels::metadata_filter(value.substr(0, eq), value.substr(eq + 1)));
      } else if (a == "--cc") {
        try {
          cc = static_cast<int>(parse_integer("--cc", value, 10, 1000));  // 80, 90, ...: major*10+minor
        } catch (const Error& e) {
          std::cerr << "error: " << printable(e.what()) << " (a compute capability such as 80 or 90)\n";
          return 2;
        }
      } else if (std::find(std::begin(kKeys), std::end(kKeys), a.substr(2)) != std::end(kKeys)) {
        filters.push_back(kernels::metadata_filter(a.substr(2), value));
      } else {
        std::cerr << "error: unknown option '" << printable(a) << "'\nRun `tessel list --help` for the options.\n";
        return 2;
      }
    }
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 2;
  }
  std::vector<std::vector<std::string>> rows;
  for (const kernels::KernelPtr& k : kernels::list_kernels(kernels::all_of(filters), cc))
    rows.push_back(columns(k->metadata()));
  std::vector<size_t> width(7, 0);
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
  return 0;
}

}  // namespace tessel::cli
