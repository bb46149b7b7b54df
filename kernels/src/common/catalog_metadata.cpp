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
    case Operation::Demo:
      return "demo";
  }
  return "?";
}

Operation parse_operation(const std::string& name) {
  for (Operation op : {Operation::Gemm, Operation::Elementwise, Operation::Demo}) {
    if (name == operation_name(op)) return op;
  }
  fail("unknown operation '" + name + "' (valid: gemm, elementwise, demo)");
}

namespace {

// A view of `shape` whose `major` mode has stride 1 and the other a pitch rounded up to
// `alignment` elements (Any: row-major, pitch padded by one alignment so no stride is 1).
TensorView example_matrix(uint64_t at, Type t, int64_t rows, int64_t cols, Major major, int alignment) {
  const int64_t a = std::max(alignment, 1);
  auto round_up = [a](int64_t v) { return (v + a - 1) / a * a; };
  TensorView v;
  v.data = at;
  v.dtype = t;
  v.shape = {1, rows, cols};
  if (major == Major::Column) {
    v.stride = {round_up(rows) * cols, 1, round_up(rows)};
  } else if (major == Major::Row) {
    v.stride = {rows * round_up(cols), round_up(cols), 1};
  } else {
    const int64_t pitch = round_up(cols) + a;
    v.stride = {rows * pitch * a, pitch * a, a};
  }
  return v;
}

}  // namespace

Arguments example_arguments(const KernelMetadata& md) {
  constexpr uint64_t kBase = uint64_t{1} << 32;  // made up, aligned far beyond any rule
  constexpr uint64_t kApart = uint64_t{1} << 28;
  if (md.operation == Operation::Gemm) {
    if (md.operands.size() != 3) fail(md.name + ": a GEMM kernel's metadata needs the operands A, B, out");
    const OperandAttributes &a = md.operand("A"), &b = md.operand("B"), &o = md.operand("out");
    constexpr int64_t n = 256;
    GemmArguments g;
    g.A = example_matrix(kBase, a.dtype, n, n, a.major, a.alignment);
    g.B = example_matrix(kBase + kApart, b.dtype, n, n, b.major, b.alignment);
    g.out = example_matrix(kBase + 2 * kApart, o.dtype, n, n, o.major, o.alignment);
    g.accumulator_type = md.accumulator;
    return g;
  }
  if (md.operation == Operation::Elementwise) {
    ElementwiseArguments e;
    auto op = md.options.find("op");
    e.op = op == md.options.end() ? ElementwiseOp::Add : parse_elementwise_op(op->second);
    const Type t = md.operands.empty() ? Type::F32 : md.operands.back().dtype;
    e.A = row_major(kBase, t, {64, 64});
    e.B = row_major(kBase + kApart, t, {64, 64});
    e.C = row_major(kBase + 2 * kApart, t, {64, 64});
    return e;
  }
  fail(md.name + ": a " + operation_name(md.operation) + " kernel takes no catalog arguments");
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
    if (key == std::string("tile-") + "mnk"[i]) {
      const int v = parse_int(key, value);
      return [v, i](const KernelMetadata& md) { return md.design.tile[static_cast<size_t>(i)] == v; };
    }
  }
  if (key == "min-cc") {
    const int v = parse_int(key, value);
    return [v](const KernelMetadata& md) { return md.min_cc <= v; };
  }
  const std::string dashed = key == "tile_m" || key == "tile_n" || key == "tile_k" || key == "min_cc"
                                 ? "; keys are spelled with dashes: " + key.substr(0, key.find('_')) + "-" +
                                       key.substr(key.find('_') + 1)
                                 : "";
  fail("unknown filter key '" + key + "' (valid: kind, class, name, dtype, major, tile-m, tile-n, tile-k, min-cc)" +
       dashed);
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
