// common/catalog_metadata.cpp: the names and predicates of the catalog's metadata: operations, majors,
// epilogues, operand look-up, the admits() test of generation and the filters of `tessel list`.
#include <algorithm>
#include <charconv>

#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/kernels/catalog.hpp"

namespace tessel::kernels {

using codegen::Type;

Operation operation_of(const Arguments& args) {
  return std::holds_alternative<GemmArguments>(args) ? Operation::Gemm : Operation::Elementwise;
}

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::Gemm:
      return "gemm";
    case Operation::Elementwise:
      return "elementwise";
  }
  return "?";
}

Operation parse_operation(const std::string& name) {
  for (Operation op : {Operation::Gemm, Operation::Elementwise}) {
    if (name == operation_name(op)) return op;
  }
  fail("unknown operation '" + name + "' (valid: gemm, elementwise)");
}

const char* major_name(Major m) {
  switch (m) {
    case Major::Row:
      return "row";
    case Major::Column:
      return "col";
    case Major::Any:
      return "any";
  }
  return "?";
}

Major parse_major(const std::string& name) {
  if (name == "row" || name == "r") return Major::Row;
  if (name == "col" || name == "c" || name == "column") return Major::Column;
  if (name == "any") return Major::Any;
  fail("unknown major '" + name + "' (valid: row, col, any)");
}

Major major_of(const TensorView& v) {
  const int r = v.rank();
  if (r < 2 || static_cast<int>(v.stride.size()) != r) return Major::Any;
  if (v.stride[r - 1] == 1) return Major::Row;
  if (v.stride[r - 2] == 1) return Major::Column;
  return Major::Any;
}

const char* epilogue_name(Epilogue e) { return e == Epilogue::Identity ? "identity" : "linear_combination"; }

const OperandAttributes& KernelMetadata::operand(std::string_view operand_name) const {
  std::string names;
  for (const OperandAttributes& o : operands) {
    if (o.name == operand_name) return o;
    names += (names.empty() ? "" : ", ") + o.name;
  }
  fail(name + " has no operand '" + std::string(operand_name) + "' (it has " + names + ")");
}

bool admits(const KernelMetadata& md, const MetadataFilter& filter, std::optional<Epilogue> epilogue,
            std::optional<int> cc) {
  if (cc && md.min_cc > *cc) return false;
  // LinearCombination with alpha = 1, beta = 0 is Identity, so it serves both.
  if (epilogue && md.epilogue != *epilogue && md.epilogue != Epilogue::LinearCombination) return false;
  return !filter || filter(md);
}

// --- Filters ------------------------------------------------------------------------------------

namespace {

int parse_int(const std::string& key, const std::string& value) {
  return static_cast<int>(parse_integer("filter " + key, value, INT32_MIN, INT32_MAX));
}

}  // namespace

MetadataFilter metadata_filter(const std::string& key, const std::string& value) {
  if (key == "kind" || key == "operation") {
    const Operation op = parse_operation(value);
    return [op](const KernelMetadata& md) { return md.operation == op; };
  }
  if (key == "class") {
    return [value](const KernelMetadata& md) { return md.kernel_class == value; };
  }
  if (key == "name") {
    return [value](const KernelMetadata& md) { return md.name.find(value) != std::string::npos; };
  }
  if (key == "dtype") {
    const Type t = codegen::parse_type(value);
    return [t](const KernelMetadata& md) {
      return md.accumulator == t ||
             std::any_of(md.operands.begin(), md.operands.end(), [t](const auto& o) { return o.dtype == t; });
    };
  }
  if (key == "major") {
    const Major m = parse_major(value);
    return [m](const KernelMetadata& md) {
      return std::all_of(md.operands.begin(), md.operands.end(), [m](const auto& o) { return o.major == m; });
    };
  }
  for (int i = 0; i < 3; ++i) {
    if (key == std::string("tile_") + "mnk"[i]) {
      const int v = parse_int(key, value);
      return [v, i](const KernelMetadata& md) { return md.design.tile[static_cast<size_t>(i)] == v; };
    }
  }
  if (key == "min_cc") {
    const int v = parse_int(key, value);
    return [v](const KernelMetadata& md) { return md.min_cc <= v; };
  }
  fail("unknown filter key '" + key + "' (valid: kind, class, name, dtype, major, tile_m, tile_n, tile_k, min_cc)");
}

MetadataFilter all_of(std::vector<MetadataFilter> filters) {
  return [filters = std::move(filters)](const KernelMetadata& md) {
    return std::all_of(filters.begin(), filters.end(), [&](const MetadataFilter& f) { return !f || f(md); });
  };
}

// --- GEMM arguments -----------------------------------------------------------------------------

Type default_accumulator(Type t) {
  if (t == Type::F64) return Type::F64;
  if (codegen::is_integer(t)) return Type::S32;
  return Type::F32;
}

GemmArguments make_gemm_arguments(TensorView A, TensorView B, TensorView out, double alpha, double beta) {
  GemmArguments g;
  g.accumulator_type = default_accumulator(A.dtype);
  g.A = std::move(A);
  g.B = std::move(B);
  g.out = std::move(out);
  g.alpha = alpha;
  g.beta = beta;
  return g;
}

}  // namespace tessel::kernels
