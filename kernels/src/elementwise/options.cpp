// elementwise/options.cpp: the elementwise class's options (`tessel dump elementwise --op add ...`):
// options -> ElementwiseConfig, and the variants listed beside the catalog's op x dtype entries
// (every rank, majors, vector widths, static shapes, 64-bit indices, ld.global.nc).
#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/elementwise.hpp"

namespace tessel::kernels {

using namespace codegen;

namespace {

// The static shape `--shape static` bakes in: ragged in every mode (no extent divides a tile).
std::vector<int64_t> static_extents(int rank) {
  static const int64_t e[4] = {1000, 333, 7, 3};
  return std::vector<int64_t>(e, e + rank);
}

}  // namespace

ElementwiseConfig elementwise_config(const Options& o) {
  ElementwiseConfig c;
  c.op = parse_elementwise_op(o.at("op"));
  c.dtype = parse_type(o.at("dtype"));
  c.rank = static_cast<int>(parse_integer("rank", o.at("rank"), 1, 8));
  const std::string& majors = o.at("majors");  // A, B, C: r (last mode contiguous) or c (first)
  const bool c_row = majors[2] == 'r';
  c.major = c_row ? c.rank - 1 : 0;
  for (int x = 0; x < 3; ++x) c.unit[x] = c.rank == 1 || majors[x] == majors[2];
  if (is_unary(c.op)) c.unit[1] = true;
  const std::string& v = o.at("vector");
  c.vector = v == "max" ? 16 / bytes(c.dtype) : static_cast<int>(parse_integer("vector", v, 1, 16));
  c.wide_index = o.at("index") == "i64";
  c.nc = o.at("nc") == "on";
  c.shifted = o.at("edge") == "shifted";
  if (o.at("stage") == "on") {  // the inputs of another major than C's, through shared memory
    if (c.rank != 2) fail("elementwise: --stage on takes rank 2 (an input transposed against C), got rank " + o.at("rank"));
    for (int x = 0; x < 2; ++x) c.staged[static_cast<size_t>(x)] = !c.unit[static_cast<size_t>(x)] && !(x == 1 && is_unary(c.op));
    if (!c.staged[0] && !c.staged[1])
      fail("elementwise: --stage on needs an input whose major differs from C's (majors '" + majors + "')");
  }
  if (o.at("shape") == "static") {
    c.static_shape = static_extents(c.rank);
    for (int x = 0; x < 3; ++x) {
      if (x == 1 && is_unary(c.op)) continue;
      const bool last_fastest = c.rank == 1 || majors[x] == 'r';
      c.static_stride[x] = (last_fastest ? row_major(0, c.dtype, c.static_shape)
                                         : column_major(0, c.dtype, c.static_shape)).stride;
    }
    // The ragged static extents make odd pitches: the vector is what the strides allow.
    auto fits = [&](int v) {
      for (int x = 0; x < 3; ++x)
        for (int k = 0; k < c.rank; ++k)
          if (c.unit[x] && k != c.major && !c.static_stride[x].empty() && c.static_stride[x][k] % v != 0) return false;
      return true;
    };
    while (c.vector > 1 && !fits(c.vector)) c.vector /= 2;
  }
  if (c.staged[0] || c.staged[1]) {
    complete_staged_config(c, [&](int x, int w) {
      if (c.static_stride[x].empty()) return true;  // dynamic: the host checks the strides it is given
      for (int k = 0; k < c.rank; ++k)
        if (k != c.second() && c.static_stride[x][k] % w != 0) return false;
      return true;
    });
  }
  return c;
}

std::vector<OptionSpec> elementwise_options() {
  return {
      {"op", {"add", "sub", "mul", "div", "min", "max", "axpby", "copy", "neg", "abs", "relu"}, "the operation"},
      {"dtype", {"f32", "f16", "bf16", "f64", "s32", "s8"}, "element type of A, B and C"},
      {"rank", {"2", "1", "3", "4"}, "tensor rank"},
      {"majors",
       {"rrr", "ccc", "crr", "rcr", "rrc", "ccr", "crc", "rcc"},
       "A, B, C: r = last mode contiguous, c = first; the tile follows C"},
      {"vector", {"max", "1", "2", "4", "8", "16"}, "elements per vector access (max: 16 bytes)"},
      {"shape", {"dynamic", "static"}, "extents and strides as parameters, or baked in (1000x333x7x3, compact)"},
      {"index", {"i32", "i64"}, "offset arithmetic width"},
      {"nc", {"off", "on"}, "inputs through ld.global.nc"},
      {"stage", {"off", "on"}, "inputs whose major differs from C's through shared memory (rank 2)"},
      {"edge",
       {"ragged", "shifted"},
       "edge tiles: predicated element by element, or shifted back inside the shape (every tile whole; needs --nc on)"},
  };
}

std::vector<Options> elementwise_variants() {
  std::vector<Options> v;
  for (const char* rank : {"1", "3", "4"})
    for (const char* dt : {"f32", "bf16", "s8"}) v.push_back({{"rank", rank}, {"dtype", dt}});
  for (const char* m : {"ccc", "crr", "rcr", "rrc", "ccr"}) v.push_back({{"majors", m}});
  for (const char* n : {"1", "2"}) v.push_back({{"vector", n}});
  for (const char* rank : {"1", "2", "3", "4"}) v.push_back({{"rank", rank}, {"shape", "static"}});
  v.push_back({{"shape", "static"}, {"majors", "crc"}, {"dtype", "bf16"}});
  v.push_back({{"index", "i64"}});
  v.push_back({{"index", "i64"}, {"rank", "3"}, {"dtype", "f16"}});
  v.push_back({{"nc", "on"}});
  v.push_back({{"nc", "on"}, {"dtype", "bf16"}});
  for (const char* dt : {"f32", "f16", "s8"}) v.push_back({{"op", "copy"}, {"majors", "crr"}, {"stage", "on"}, {"dtype", dt}});
  v.push_back({{"majors", "rcc"}, {"stage", "on"}, {"dtype", "bf16"}});
  v.push_back({{"op", "copy"}, {"majors", "rrc"}, {"stage", "on"}, {"dtype", "s8"}, {"shape", "static"}});
  // The host's staged copies: shifted edge tiles (no ragged path), its smaller tiles (vector 2).
  for (const char* dt : {"f32", "f16", "s8"})
    v.push_back({{"op", "copy"}, {"majors", "crr"}, {"stage", "on"}, {"dtype", dt}, {"nc", "on"}, {"edge", "shifted"}});
  v.push_back({{"op", "copy"},
               {"majors", "rrc"},
               {"stage", "on"},
               {"dtype", "bf16"},
               {"nc", "on"},
               {"edge", "shifted"},
               {"vector", "2"}});
  v.push_back({{"majors", "rcc"}, {"stage", "on"}, {"dtype", "bf16"}, {"nc", "on"}, {"edge", "shifted"}});
  return v;
}

}  // namespace tessel::kernels
