// hopper_gemm/host.cpp: the host side of the Hopper GEMM: what it supports, its TMA descriptors,
// its launch plan, its metadata, its catalog class and its `tessel dump` family.
#include <algorithm>
#include <array>
#include <cmath>
#include <atomic>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <unordered_map>
#include <utility>

#include "common/gemm_c.hpp"
#include "gemm/packing.hpp"
#include "hopper_gemm/shared_storage.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/kernels/tma.hpp"
#include "tessel/runtime/device.hpp"

namespace tessel::kernels {

using codegen::Type;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// A view as (L, rows, cols) with strides; rank 2 is one batch.
struct Matrix {
  std::array<int64_t, 3> shape{1, 1, 1}, stride{0, 0, 0};
};

Matrix as_matrix(const TensorView& v) {
  Matrix m;
  const int off = v.rank() == 2 ? 1 : 0;
  for (int i = 0; i < v.rank() && i < 3; ++i) {
    m.shape[static_cast<size_t>(i + off)] = v.shape[static_cast<size_t>(i)];
    m.stride[static_cast<size_t>(i + off)] = v.stride[static_cast<size_t>(i)];
  }
  return m;
}

// Which of (rows, cols) has stride 1 for an operand of this major: 2 (cols) or 1 (rows).
// A is (M, K): K-major is cols. B is (K, N): K-major is rows. out is (M, N): Row is cols.
int unit_mode(bool is_b, codegen::Major major) {
  const bool k_major = major == codegen::Major::K;
  return is_b ? (k_major ? 1 : 2) : (k_major ? 2 : 1);
}

// `broadcast`: the operand may have a batch stride of 0 (A, B and C: the kernel then loads batch 0
// for every batch; out's batches would alias).
// `granule`: the bytes the address and the strides must be multiples of (the TMA's 16; C by lines
// takes C's element size).
Status check_operand(const std::string& n, const TensorView& v, Type dtype, int unit, const char* rows,
                     const char* cols, bool broadcast = false, int64_t granule = 16) {
  if (v.rank() != 2 && v.rank() != 3) {
    return Status::failure(n + " has rank " + str(v.rank()) + "; hopper_gemm takes rank 3 (L, " + rows + ", " + cols +
                           ") or rank 2 (" + rows + ", " + cols + ")");
  }
  if (v.stride.size() != v.shape.size())
    return Status::failure(n + " has " + str(static_cast<int64_t>(v.stride.size())) + " strides for rank " +
                           str(v.rank()));
  if (v.dtype != dtype)
    return Status::failure(n + " is " + codegen::ptx_name(v.dtype) + "; this kernel takes " + codegen::ptx_name(dtype));
  const int eb = codegen::bytes(dtype);
  if (v.data % granule != 0) {
    return Status::failure(n + " at " + v.to_string() + " is not " + str(granule) + "-byte aligned" +
                           (granule == 16 ? " (the TMA and the vector stores need 16 bytes)" : " (its element size)"));
  }
  const Matrix m = as_matrix(v);
  const char* names[3] = {"L", rows, cols};
  if (m.shape[static_cast<size_t>(unit)] > 1 && m.stride[static_cast<size_t>(unit)] != 1) {
    return Status::failure(n + " has stride " + str(m.stride[static_cast<size_t>(unit)]) + " in " + names[unit] +
                           "; this kernel needs stride 1 there (" + names[unit] + "-contiguous " + n + ")");
  }
  for (int i = 0; i < 3; ++i) {
    const int64_t s = m.stride[static_cast<size_t>(i)], e = m.shape[static_cast<size_t>(i)];
    if (i == unit || e <= 1) continue;
    if (i == 0 && s == 0 && broadcast) continue;
    if (s <= 0) {
      return Status::failure(n + " has stride " + str(s) + " in " + names[i] + " (extent " + str(e) +
                             "); hopper_gemm needs positive strides" +
                             (i == 0 ? (broadcast ? " or a batch stride of 0 (broadcast)" : " (out's batches may not alias)")
                                     : std::string(" (a batch stride of 0 broadcasts, no other)")));
    }
    if ((s * eb) % granule != 0) {
      return Status::failure(
          n + " has stride " + str(s) + " in " + names[i] + ": " + str(s * eb) +
          " bytes is not a multiple of 16 (the TMA's rule; pad the leading dimension to a multiple of " + str(16 / eb) +
          " elements)");
    }
    if (s * eb >= (int64_t{1} << 40))
      return Status::failure(n + " has stride " + str(s) + " in " + names[i] +
                             ": the TMA takes byte strides below 2^40");
  }
  for (int i = 0; i < 3; ++i) {
    if (m.shape[static_cast<size_t>(i)] > std::numeric_limits<int32_t>::max())
      return Status::failure(n + " has extent " + str(m.shape[static_cast<size_t>(i)]) + " in " + names[i] +
                             "; hopper_gemm takes extents below 2^31");
  }
  return Status::success();
}

// Which of C's (rows, cols) has stride 1: 2 (row-major), 1 (column-major), or 0 when neither
// (an extent of 1 takes any stride). A mode of extent 1 is the unit one only where the other is
// not: a (192, 1) C with strides (1, 1) is column-major, since read row-major its rows would lie
// 1 element apart, which no TMA box can step.
int c_unit_mode(const TensorView& c) {
  const Matrix m = as_matrix(c);
  if (m.stride[2] == 1 && m.shape[2] > 1) return 2;
  if (m.stride[1] == 1 && m.shape[1] > 1) return 1;
  if (m.shape[2] <= 1) return 2;
  if (m.shape[1] <= 1) return 1;
  return 0;
}

// Whether the kernel (`c`: kernel_config's, `out` in its problem) stores out through the TMA: its
// address (unless `strides_only`) and every stride but its unit one's on the 16-byte granules; else
// element by element (kHopperGemmElementwiseOut). A mode of extent 1 is the unit one when the
// kernel's major says so: a (1, 150) out with strides (1, 1) under an M-contiguous kernel has its
// N stride 1 a pitch of 4 bytes.
bool out_through_tma(const HopperGemmConfig& c, TensorView out, bool strides_only = false) {
  if (strides_only) out.data = 0;
  return tma_aligned_in(out, c.out_major);
}

// The C the kernel reads: args.c(), or with beta == 0 (C never read) out, whatever C is.
const TensorView& c_read(const GemmArguments& g) { return g.beta != 0 ? g.c() : g.out; }

// A batch stride of 0 over more than one batch: one matrix for every batch.
bool broadcast_batches(const TensorView& v) {
  const Matrix m = as_matrix(v);
  return m.shape[0] > 1 && m.stride[0] == 0;
}


// Split-K's rules on GemmArguments::split_k (K: the problem's).
Status hopper_gemm_split_k_supports(const HopperGemmConfig& c, const GemmArguments& g, int64_t K) {
  if (!c.split_k) {
    if (g.split_k != 1)
      return Status::failure("split_k " + str(g.split_k) +
                             ": this kernel does not split K (1 only; the split-K kernels, named _sk, do)");
    return Status::success();
  }
  const int64_t k_tiles = (K + c.tile_k() - 1) / c.tile_k();
  if (g.split_k < 1 || g.split_k > kHopperGemmMaxSplits)
    return Status::failure("split_k " + str(g.split_k) + " (1 to " + str(kHopperGemmMaxSplits) + ")");
  if (g.split_k > std::max<int64_t>(k_tiles, 1))
    return Status::failure("split_k " + str(g.split_k) + " with K = " + str(K) + ": " + str(k_tiles) +
                           " k-tiles of " + str(c.tile_k()) + ", and every split needs at least one k-tile");
  return Status::success();
}

// Stream-K's rule on GemmArguments::stream_k_workers.
Status hopper_gemm_stream_k_supports(const HopperGemmConfig& c, const GemmArguments& g) {
  if (!c.stream_k) {
    if (g.stream_k_workers != 0)
      return Status::failure("stream_k_workers " + str(g.stream_k_workers) +
                             ": this kernel does not stream K (0 only; the stream-K kernels, named _streamk, do)");
    return Status::success();
  }
  if (g.stream_k_workers < 0 || g.stream_k_workers > 65535)
    return Status::failure("stream_k_workers " + str(g.stream_k_workers) + " (0 to 65535 CTAs)");
  return Status::success();
}

}  // namespace

Status hopper_gemm_supports(const HopperGemmConfig& c, const GemmArguments& g) {
  const int ua = unit_mode(false, c.a_major), ub = unit_mode(true, c.b_major);
  const int uo = c.out_major == Major::Row ? 2 : 1;
  if (Status s = check_gemm_types(g, c.ab, c.out); !s) return s;
  if (Status s = check_operand("A", g.A, c.ab, ua, "M", "K", true); !s) return s;
  if (Status s = check_operand("B", g.B, c.ab, ub, "K", "N", true); !s) return s;
  // out off the TMA's granules (its address or pitch) is stored element by element
  // (kHopperGemmElementwiseOut): only its element size is a rule.
  if (Status s = check_operand("out", g.out, c.out, uo, "M", "N", false, codegen::bytes(c.out)); !s) return s;
  // C (read by the TMA when beta != 0): out's shape and type, its own major (M or N contiguous).
  if (Status s = check_gemm_c(g, "hopper_gemm"); !s) return s;
  // (out itself, where no C of its own is given: off the granules, it is stored element by element
  // but must still be read.)
  if (g.beta != 0) {
    const TensorView& cr = g.c();
    const int uc = c_unit_mode(cr);
    if (uc == 0) {
      return Status::failure("C " + cr.to_string() +
                             " has stride 1 in neither M nor N; hopper_gemm loads C through the TMA, whose boxes need a "
                             "contiguous mode (simt_gemm takes any strides)");
    }
    // Off the TMA's granules, a kernel with room for C's lines reads C in lines (its batch stride
    // still a multiple of 16 bytes: every view moves by it).
    const bool room = hopper_gemm_c_lines(c), lines = room && !tma_aligned(cr);
    const std::string name = g.distinct_c() ? "C" : "C (out, read in place)";
    if (Status s = check_operand(name, cr, c.out, uc, "M", "N", true, lines ? codegen::bytes(c.out) : 16); !s) {
      if (!room && !tma_aligned(cr))
        return Status::failure(s.reason + "; " + c.name() +
                               " has no room to read C in lines (a box 128 bytes of out wide and shared memory to "
                               "spare); the other kernels read such a C");
      return s;
    }
    const Matrix cm = as_matrix(cr);
    if (lines && cm.shape[0] > 1 && cm.stride[0] != 0 && (cm.stride[0] * codegen::bytes(c.out)) % 16 != 0)
      return Status::failure("C " + cr.to_string() + " has batch stride " + str(cm.stride[0]) +
                             ": read in lines, C's batches must lie a multiple of 16 bytes apart");
    // A C with N contiguous in the kernel's problem loads in boxes 128 bytes of N wide.
    const HopperGemmConfig k = kernel_config(c);
    if ((uc == 2) != runs_transposed(c) && k.tile_n * codegen::bytes(c.out) < 128)
      return Status::failure("C " + cr.to_string() + " is " + (uc == 2 ? "row" : "column") + "-major and out " +
                             (c.out_major == Major::Row ? "row" : "column") + "-major: " + c.name() +
                             " loads such a C in boxes of 128 bytes of " + (uc == 2 ? "N" : "M") + ", wider than its " +
                             str(k.tile_n) + "-column tile (a kernel without _swap, or a C in out's major, runs it)");
  }
  if (g.A.rank() != g.B.rank() || g.A.rank() != g.out.rank()) {
    return Status::failure("A, B and out have ranks " + str(g.A.rank()) + ", " + str(g.B.rank()) + " and " +
                           str(g.out.rank()) + "; hopper_gemm needs one rank for all three");
  }
  const Matrix a = as_matrix(g.A), b = as_matrix(g.B), o = as_matrix(g.out);
  const int64_t L = o.shape[0], M = o.shape[1], N = o.shape[2], K = a.shape[2];
  if (a.shape[0] != L || b.shape[0] != L)
    return Status::failure("batch sizes differ: A has L = " + str(a.shape[0]) + ", B " + str(b.shape[0]) + ", out " +
                           str(L));
  if (a.shape[1] != M) return Status::failure("A has M = " + str(a.shape[1]) + ", out has M = " + str(M));
  if (b.shape[2] != N) return Status::failure("B has N = " + str(b.shape[2]) + ", out has N = " + str(N));
  if (b.shape[1] != K) return Status::failure("B has K = " + str(b.shape[1]) + ", A has K = " + str(K));
  if (L < 1 || M < 1 || N < 1 || K < 0)
    return Status::failure("out is " + g.out.to_string() + "; hopper_gemm needs L, M, N >= 1 and K >= 0");
  const int64_t rows = runs_transposed(c) ? N : M, cols = runs_transposed(c) ? M : N;  // the kernel's
  const int64_t tiles = ((rows + c.tile_m - 1) / c.tile_m) * ((cols + c.tile_n - 1) / c.tile_n) * L;
  if (tiles > std::numeric_limits<int32_t>::max())
    return Status::failure(str(tiles) + " tiles of " + str(c.tile_m) + "x" + str(c.tile_n) +
                           "; the scheduler counts in int32");
  if (g.accumulator_type != Type::F32) {
    return Status::failure(std::string("accumulator ") + codegen::ptx_name(g.accumulator_type) +
                           " asked; hopper_gemm accumulates in f32");
  }
  if (!std::isfinite(g.alpha) || !std::isfinite(g.beta))
    return Status::failure("alpha = " + std::to_string(g.alpha) + ", beta = " + std::to_string(g.beta) +
                           ": they must be finite");
  if (Status s = hopper_gemm_stream_k_supports(c, g); !s) return s;
  return hopper_gemm_split_k_supports(c, g, K);
}

namespace {

TensorView transposed(TensorView v) {
  const size_t r = v.shape.size();
  std::swap(v.shape[r - 1], v.shape[r - 2]);
  std::swap(v.stride[r - 1], v.stride[r - 2]);
  return v;
}

// The problem the kernel computes: the arguments, or out^T = B^T A^T (runs_transposed).
GemmArguments kernel_arguments(const HopperGemmConfig& c, const GemmArguments& g) {
  if (!runs_transposed(c)) return g;
  GemmArguments t = g;
  t.A = transposed(g.B);
  t.B = transposed(g.A);
  t.out = transposed(g.out);
  if (g.C) t.C = transposed(*g.C);
  return t;
}

}  // namespace

bool hopper_gemm_c_lines(const HopperGemmConfig& c) { return HopperGemmSharedStorage(kernel_config(c)).c_lines; }

uint32_t hopper_gemm_flags(const TensorView& A, const TensorView& B, const TensorView& C) {
  uint32_t f = 0;
  if (!tma_aligned(C)) f |= kHopperGemmLinesC;  // and G's log2: hopper_gemm_c_views
  if (broadcast_batches(A)) f |= kHopperGemmBroadcastA;
  if (broadcast_batches(B)) f |= kHopperGemmBroadcastB;
  if (broadcast_batches(C)) f |= kHopperGemmBroadcastC;
  if (c_unit_mode(C) != 2) f |= kHopperGemmColumnMajorC;
  return f;
}

HopperGemmTensorMaps hopper_gemm_tensor_maps(const HopperGemmConfig& config, const GemmArguments& args) {
  const HopperGemmConfig c = kernel_config(config);
  const GemmArguments g = kernel_arguments(config, args);
  const Matrix a = as_matrix(g.A), b = as_matrix(g.B), o = as_matrix(g.out);
  const int64_t L = a.shape[0], M = a.shape[1], K = a.shape[2], N = b.shape[2];
  const int chunk = 128 / codegen::bytes(c.ab);  // elements in one 128-byte swizzle row
  // fp8 moves as bytes; f32 as f32 (wgmma reads the tf32 bits of it).
  const Type tma_type = c.ab == Type::E4M3 || c.ab == Type::E5M2 ? Type::U8 : c.ab;
  // One tensor: (contiguous, other, L) with the strides the TMA needs made valid where the extent
  // is 1 (a single row or batch: its stride is never followed, but must be a 16-byte multiple).
  // A broadcast operand (batch stride 0) is one batch: the kernel loads it at batch 0 (the TMA
  // takes no stride of 0; the runtime's tensor-map rules refuse it).
  auto spec = [&](Type t, int64_t contiguous, int64_t other, int64_t other_stride, int64_t batch_stride,
                  std::vector<int64_t> box) {
    const int64_t eb = codegen::bytes(t);
    const int64_t e0 = std::max<int64_t>(contiguous, 1), e1 = std::max<int64_t>(other, 1);
    const int64_t batches = batch_stride == 0 ? 1 : L;
    if (other <= 1) other_stride = ((e0 * eb + 15) / 16) * 16 / eb;
    if (batches <= 1) batch_stride = other_stride * e1;
    const Layout l = make_layout(IntTuple{e0, e1, batches}, IntTuple{1, other_stride, batch_stride});
    return make_tensor_map_spec(l, t, box, codegen::SmemSwizzle::B128);
  };
  const int BK = c.tile_k();
  HopperGemmTensorMaps maps;
  // In a cluster each CTA loads its share of the A (1/cluster_n) and B (1/cluster_m) tiles and
  // multicasts it (c is the kernel's configuration: for a column-major out, the clusters swapped).
  maps.a = c.a_major == codegen::Major::K
               ? spec(tma_type, K, M, a.stride[1], a.stride[0], {BK, c.tile_m / c.cluster_n, 1})
               : spec(tma_type, M, K, a.stride[2], a.stride[0], {chunk, BK, 1});
  maps.b = c.b_major == codegen::Major::K
               ? spec(tma_type, K, N, b.stride[2], b.stride[0], {BK, c.tile_n / c.cluster_m, 1})
               : spec(tma_type, N, K, b.stride[1], b.stride[0], {chunk, BK, 1});
  // The epilogue stores boxes of 64 rows x 128 bytes of a row-major out; of a column-major one
  // (the kernel's, swapped), 128 bytes of M (64 rows of 16-bit out, two stores of 32 for f32) x the
  // box's columns (128 bytes of out, or the tile's columns where fewer).
  const int out_chunk = 128 / codegen::bytes(c.out);  // out's elements in one 128-byte swizzle row
  const int box_n = std::min(out_chunk, c.tile_n);
  // An out off the granules is stored element by element (kHopperGemmElementwiseOut): its map is
  // never read, and stands in with its pitches rounded up to 16 bytes (encoded at out's granule).
  const int64_t ob = codegen::bytes(c.out);
  const bool whole = out_through_tma(c, g.out, true);
  const auto pitch = [&](int64_t s) { return whole ? s : (s * ob + 15) / 16 * 16 / ob; };
  maps.out = c.out_major == Major::Row
                 ? spec(c.out, N, M, pitch(o.stride[1]), pitch(o.stride[0]), {out_chunk, 64, 1})
                 : spec(c.out, M, N, pitch(o.stride[2]), pitch(o.stride[0]), {out_chunk, box_n, 1});
  // The epilogue loads C into the same boxes, in C's own major.
  const Matrix cm = as_matrix(c_read(g));
  // C in lines has its views instead (hopper_gemm_c_views, at launch: they depend on C's address;
  // out's map stands in here), by C's strides alone, so that the maps stay a function of the layouts.
  // With beta == 0 C is never read: out's map stands in.
  TensorView c_at_zero = c_read(g);
  c_at_zero.data = 0;
  if (g.beta != 0 && !tma_aligned(c_read(g)) && hopper_gemm_c_lines(config))
    maps.c_views = hopper_gemm_c_views(config, args);
  maps.c = g.beta == 0 || !tma_aligned(c_at_zero) ? maps.out
           : c_unit_mode(c_read(g)) == 2 ? spec(c.out, N, M, cm.stride[1], cm.stride[0], {out_chunk, 64, 1})
                                   : spec(c.out, M, N, cm.stride[2], cm.stride[0], {out_chunk, box_n, 1});
  return maps;
}

HopperGemmCViews hopper_gemm_c_views(const HopperGemmConfig& config, const GemmArguments& args) {
  const HopperGemmConfig c = kernel_config(config);
  const GemmArguments g = kernel_arguments(config, args);
  const TensorView& cv = g.c();
  const Matrix o = as_matrix(g.out), m = as_matrix(cv);
  const int64_t L = o.shape[0], M = o.shape[1], N = o.shape[2];
  const int64_t eb = codegen::bytes(c.out);
  const bool rows = c_unit_mode(cv) == 2;  // lines are rows (along N), else columns (along M)
  const int64_t lines = rows ? M : N, extent = rows ? N : M, pitch = rows ? m.stride[1] : m.stride[2];
  const int64_t pitch_bytes = lines > 1 ? pitch * eb : 0;
  HopperGemmCViews v;
  v.line_bytes = pitch_bytes;
  int64_t G = 16 / std::gcd<int64_t>(pitch_bytes % 16, 16);
  while ((int64_t{1} << v.log_g) < G) ++v.log_g;
  // A box: a line (128 bytes of out) and one granule more, times the lines of a box in one view:
  // 64 / G rows, or the box's columns / G per run of 128 bytes of M.
  const int64_t chunk = 128 / eb, subn = std::min<int64_t>(chunk, c.tile_n), wide = chunk + 16 / eb;
  const int64_t batches = L > 1 && m.stride[0] != 0 ? L : 1;
  for (int64_t j = 0; j < std::min(G, lines); ++j) {
    const int64_t off = static_cast<int64_t>((cv.data + static_cast<uint64_t>(j * pitch_bytes)) & 15);
    v.offsets |= static_cast<uint32_t>(off) << (4 * j);
    const int64_t count = (lines - j + G - 1) / G, inner = off / eb + extent;
    // A view of one line never steps to a next, but its pitch must still be a multiple of 16 bytes
    // (an (M, 1) C with strides (1, 1): its one column's pitch is 1 element).
    const int64_t view_pitch = count > 1 ? G * pitch : (inner * eb + 15) / 16 * 16 / eb;
    const int64_t batch_stride = batches > 1 ? m.stride[0] : view_pitch * count;
    const Layout l = make_layout(IntTuple{inner, count, batches}, IntTuple{1, view_pitch, batch_stride});
    const std::vector<int64_t> box =
        rows ? std::vector<int64_t>{wide, 64 / G, 1} : std::vector<int64_t>{wide, subn / G, 1};
    v.specs.push_back(make_tensor_map_spec(l, c.out, box, codegen::SmemSwizzle::None));
  }
  return v;
}

codegen::LaunchPlan hopper_gemm_plan(const HopperGemmConfig& config, const GemmArguments& args, codegen::Module module,
                                     int max_ctas, const TensorMapEncoder& encode) {
  codegen::LaunchPlan p = hopper_gemm_launch(config, args, max_ctas, encode);
  p.module = std::move(module);
  return p;
}

codegen::LaunchPlan hopper_gemm_launch(const HopperGemmConfig& config, const GemmArguments& args, int max_ctas,
                                       const TensorMapEncoder& encode, const HopperGemmTensorMaps* known_maps) {
  if (Status s = hopper_gemm_supports(config, args); !s)
    fail(config.name() + " cannot run these arguments: " + s.reason);
  const HopperGemmTensorMaps maps = known_maps ? *known_maps : hopper_gemm_tensor_maps(config, args);
  const HopperGemmConfig c = kernel_config(config);
  const GemmArguments g = kernel_arguments(config, args);
  const Matrix a = as_matrix(g.A), o = as_matrix(g.out);
  const int64_t L = o.shape[0], M = o.shape[1], N = o.shape[2], K = a.shape[2];
  // Persistent: one cluster per cluster_size() SMs at most, each walking cluster tiles (cluster_m x
  // cluster_n tiles).
  const int64_t cm = c.tile_m * c.cluster_m, cn = c.tile_n * c.cluster_n, cs = c.cluster_size();
  const int64_t tiles = ((M + cm - 1) / cm) * ((N + cn - 1) / cn) * L * (c.split_k ? args.split_k : 1);
  // Stream-K's grid is its workers (G), whatever the SM count: its ranges are cut for G CTAs.
  const HopperGemmStreamKPlan sk = c.stream_k ? hopper_gemm_stream_k_plan(config, args) : HopperGemmStreamKPlan{};
  const int64_t clusters = c.stream_k && args.stream_k_workers > 0
                               ? sk.ctas
                               : std::clamp<int64_t>(tiles, 1, std::max<int64_t>(1, max_ctas / cs));
  codegen::LaunchPlan p;
  p.kernel = config.name();
  p.grid = {static_cast<unsigned>(clusters * cs), 1, 1};
  p.cluster = {static_cast<unsigned>(cs), 1, 1};
  p.block = {static_cast<unsigned>(c.threads()), 1, 1};
  p.dynamic_shared_bytes = static_cast<unsigned>(c.shared_bytes());
  const int64_t ld = c.out_major == Major::Row ? o.stride[1] : o.stride[2];  // between rows (columns, M-contiguous)
  // An out stored element by element: its stand-in map at its granule (never read).
  const bool out_by_tma = out_through_tma(c, g.out);
  p.arg(encode(maps.a, g.A.data)).arg(encode(maps.b, g.B.data));
  p.arg(encode(maps.out, out_by_tma ? g.out.data : g.out.data & ~uint64_t{15}));
  const TensorView& cv = c_read(g);
  uint32_t flags = hopper_gemm_flags(g.A, g.B, cv);
  if (g.beta == 0) flags &= ~kHopperGemmLinesC;  // C is never read
  if (!out_by_tma) flags |= kHopperGemmElementwiseOut;
  const int extra_views = hopper_gemm_c_lines(config) ? 16 / codegen::bytes(c.out) - 1 : 0;
  uint32_t offsets = 0;
  if (flags & kHopperGemmLinesC) {  // tmap_c and the extra views: C's views, based at this C
    const HopperGemmCViews& v = maps.c_views;
    if (v.specs.empty()) fail(config.name() + ": C in lines without its views (hopper_gemm_tensor_maps of another C?)");
    flags |= static_cast<uint32_t>(v.log_g) << kHopperGemmLogViewsShift;
    offsets = v.offsets;
    for (int j = 0; j <= extra_views; ++j) {
      const int64_t at = j < static_cast<int>(v.specs.size()) ? j : 0;
      const uint64_t base = (cv.data + static_cast<uint64_t>(at * v.line_bytes)) & ~uint64_t{15};
      p.arg(encode(v.specs[static_cast<size_t>(at)], base));
    }
  } else {  // through the TMA: the extra views repeat tmap_c (never read); out's stand-in with beta == 0
    const rt::TensorMap mc = encode(maps.c, g.beta == 0 && !out_by_tma ? g.out.data & ~uint64_t{15} : cv.data);
    for (int j = 0; j <= extra_views; ++j) p.arg(mc);
  }
  p.arg(g.out.data);
  p.arg(static_cast<int32_t>(M)).arg(static_cast<int32_t>(N)).arg(static_cast<int32_t>(K)).arg(static_cast<int32_t>(L));
  p.arg(ld).arg(o.stride[0]).arg(static_cast<float>(g.alpha)).arg(static_cast<float>(g.beta));
  p.arg(flags);
  if (extra_views > 0) p.arg(offsets);
  if (c.split_k) {
    const std::size_t ws = hopper_gemm_workspace_size(config, args);
    if (ws > 0 && args.workspace == 0)
      fail(config.name() + " with split_k " + str(args.split_k) + " needs a workspace of " + str(static_cast<int64_t>(ws)) +
           " bytes (workspace_size; GemmArguments::workspace or Kernel::run's), got none");
    if (ws > 0 && args.workspace % 16 != 0)
      fail(config.name() + ": the workspace at " + str(static_cast<int64_t>(args.workspace)) +
           " is not 16-byte aligned (split-K's partial tiles move in 16-byte vectors)");
    p.arg(static_cast<int32_t>(args.split_k)).arg(args.workspace).arg(hopper_gemm_split_k_launch_id());
  }
  if (c.stream_k) {
    if (sk.workspace > 0 && args.workspace == 0)
      fail(config.name() + " with " + str(args.stream_k_workers) + " stream-K workers needs a workspace of " +
           str(static_cast<int64_t>(sk.workspace)) + " bytes (workspace_size; GemmArguments::workspace or Kernel::run's), got none");
    if (sk.workspace > 0 && args.workspace % 16 != 0)
      fail(config.name() + ": the workspace at " + str(static_cast<int64_t>(args.workspace)) +
           " is not 16-byte aligned (stream-K's partial tiles move in 16-byte vectors)");
    p.arg(static_cast<int32_t>(sk.dp_tiles)).arg(static_cast<int32_t>(sk.slots)).arg(args.workspace);
    p.arg(hopper_gemm_split_k_launch_id());
  }
  return p;
}

HopperGemmStreamKPlan hopper_gemm_stream_k_plan(const HopperGemmConfig& config, const GemmArguments& args) {
  HopperGemmStreamKPlan plan;
  const GemmArguments g = kernel_arguments(config, args);
  const Matrix a = as_matrix(g.A), o = as_matrix(g.out);
  const int64_t T = ((o.shape[1] + config.tile_m - 1) / config.tile_m) *
                    ((o.shape[2] + config.tile_n - 1) / config.tile_n) * o.shape[0];
  const int64_t kt = (a.shape[2] + config.tile_k() - 1) / config.tile_k();
  if (!config.stream_k || args.stream_k_workers <= 0 || kt == 0) {
    plan.dp_tiles = T;
    plan.ctas = std::max<int64_t>(1, std::min<int64_t>(T, 1 << 30));
    return plan;
  }
  plan = hopper_gemm_stream_k_division(T, kt, args.stream_k_workers);
  if (plan.sk_tiles == 0) return plan;
  const int64_t counters = (plan.sk_tiles * 8 + 255) / 256 * 256;  // SplitKFixup::counter_bytes
  plan.workspace = static_cast<std::size_t>(counters + plan.sk_tiles * plan.slots * config.tile_m * config.tile_n * 4);
  return plan;
}

HopperGemmStreamKPlan hopper_gemm_stream_k_division(int64_t tiles, int64_t k_tiles, int64_t workers) {
  HopperGemmStreamKPlan plan;
  const int64_t T = tiles, kt = k_tiles, G = std::max<int64_t>(1, std::min<int64_t>(workers, T * kt));
  plan.ctas = G;
  plan.sk_tiles = T <= G ? T : T % G == 0 ? 0 : G + T % G;
  plan.dp_tiles = T - plan.sk_tiles;
  if (plan.sk_tiles == 0) return plan;
  // A range is at least q = floor(W / G) >= 1 k-tiles long, so a tile's kt k-tiles meet the range
  // holding its first one and at most ceil((kt - 1) / q) that start inside it.
  const int64_t q = plan.sk_tiles * kt / G;
  plan.slots = std::min(kt, (kt - 1 + q - 1) / q + 1);
  return plan;
}

std::size_t hopper_gemm_workspace_size(const HopperGemmConfig& config, const GemmArguments& args) {
  if (config.stream_k) return hopper_gemm_stream_k_plan(config, args).workspace;
  if (!config.split_k || args.split_k <= 1) return 0;
  const GemmArguments g = kernel_arguments(config, args);
  const Matrix o = as_matrix(g.out);
  const int64_t tiles =
      ((o.shape[1] + config.tile_m - 1) / config.tile_m) * ((o.shape[2] + config.tile_n - 1) / config.tile_n) * o.shape[0];
  const int64_t counters = (tiles * 8 + 255) / 256 * 256;  // SplitKFixup::counter_bytes
  return static_cast<std::size_t>(counters + tiles * args.split_k * config.tile_m * config.tile_n * 4);
}

uint64_t hopper_gemm_split_k_launch_id() {
  // Seeded per process, so that a workspace left by another process is as unlikely to hold a
  // matching id as any random 48 bits.
  static std::atomic<uint64_t> next{std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32)};
  for (;;) {
    const uint64_t id = next.fetch_add(1) & ((uint64_t{1} << 48) - 1);
    if (id != 0) return id;
  }
}

KernelMetadata hopper_gemm_metadata(const HopperGemmConfig& c) {
  KernelMetadata md;
  md.name = c.name();
  md.kernel_class = "hopper_gemm";
  md.operation = Operation::Gemm;
  const int align_ab = 16 / codegen::bytes(c.ab), align_out = 16 / codegen::bytes(c.out);
  // A (M, K) K-major is row-major; B (K, N) K-major is column-major.
  md.operands = {{"A", c.ab, c.a_major == codegen::Major::K ? Major::Row : Major::Column, align_ab},
                 {"B", c.ab, c.b_major == codegen::Major::K ? Major::Column : Major::Row, align_ab},
                 {"out", c.out, c.out_major, align_out}};
  md.accumulator = Type::F32;
  md.design.tile = {c.tile_m, c.tile_n, c.tile_k()};
  md.design.stages = c.stages;
  md.design.cluster = {c.cluster_m, c.cluster_n, 1};
  md.design.threads = c.threads();
  md.min_cc = 90;
  md.epilogue = Epilogue::LinearCombination;
  md.c_alignment = hopper_gemm_c_lines(c) ? codegen::bytes(c.out) : 16;
  md.options = hopper_gemm_options(c);
  return md;
}

namespace {

// The SM count of the device the kernel runs on (the persistent grid's size); read once per device.
int device_sm_count() { return device_in_use().sm_count; }

class HopperGemm : public Kernel {
 public:
  explicit HopperGemm(const HopperGemmConfig& c) : HopperGemm(c, hopper_gemm_metadata(c)) {}
  HopperGemm(const HopperGemmConfig& c, KernelMetadata md) : Kernel(std::move(md)), config_(c) {}

  Status supports(const Arguments& args) const override {
    const auto* g = std::get_if<GemmArguments>(&args);
    if (!g) return Status::failure(name() + " runs GEMM arguments, not " + operation_name(operation_of(args)));
    return hopper_gemm_supports(config_, *g);
  }
  codegen::Module generate(const Arguments&) const override { return hopper_gemm(config_); }
  codegen::Module generate() const override { return hopper_gemm(config_); }
  // Without an encoder in `target`, needs the CUDA driver (cuTensorMapEncodeTiled).
  codegen::LaunchPlan plan(const Arguments& args, const Artifact& artifact, const LaunchTarget& target) const override {
    codegen::LaunchPlan p = launch(args, target);
    p.module = artifact.module;
    return p;
  }
  codegen::LaunchPlan plan_for_launch(const Arguments& args, const Artifact&, const LaunchTarget& target) const override {
    return launch(args, target);
  }
  std::size_t workspace_size(const Arguments& args) const override {
    const auto* g = std::get_if<GemmArguments>(&args);
    return g ? hopper_gemm_workspace_size(config_, *g) : 0;
  }

 private:
  codegen::LaunchPlan launch(const Arguments& args, const LaunchTarget& target) const {
    const auto* g = std::get_if<GemmArguments>(&args);
    if (!g) fail(name() + " runs GEMM arguments, not " + operation_name(operation_of(args)));
    if (Status s = hopper_gemm_supports(config_, *g); !s) fail(name() + " cannot run these arguments: " + s.reason);
    // The descriptors' specs by layout (the algebra runs once per layout); on a GPU the descriptors
    // themselves by spec and address (encode_tensor_map_cached).
    const HopperGemmTensorMaps maps = tensor_maps(*g);
    return hopper_gemm_launch(config_, *g, target.sm_count > 0 ? target.sm_count : device_sm_count(),
                              target.encode ? target.encode : TensorMapEncoder(encode_tensor_map_cached), &maps);
  }

  // hopper_gemm_tensor_maps(config_, g), kept by everything it reads: the layouts of A, B, out and of
  // the C the kernel reads (out's when beta is 0).
  HopperGemmTensorMaps tensor_maps(const GemmArguments& g) const {
    std::string key;
    key.reserve(256);
    append_layout_key(key, g.A);
    append_layout_key(key, g.B);
    append_layout_key(key, g.out);
    append_layout_key(key, c_read(g));
    key += static_cast<char>('a' + (c_read(g).data & 15));  // C in lines: its views by its offset in a granule
    std::lock_guard lock(maps_mutex_);
    auto it = maps_.find(key);
    if (it == maps_.end()) {
      if (maps_.size() >= 1024) maps_.clear();  // bounded: a process that sweeps shapes starts over
      it = maps_.emplace(std::move(key), hopper_gemm_tensor_maps(config_, g)).first;
    }
    return it->second;
  }

  HopperGemmConfig config_;
  mutable std::mutex maps_mutex_;
  mutable std::unordered_map<std::string, HopperGemmTensorMaps> maps_;
};

}  // namespace

std::string HopperGemmClass::description() const {
  return "Hopper GEMM (sm_90a): TMA + mbarrier pipeline, warp-specialized wgmma consumers, persistent tile scheduler";
}

std::vector<HopperGemmConfig> HopperGemmClass::configurations() {
  struct Tile {
    int m, n, stages;  // stages for 16-bit types: about 192 KB of shared memory
  };
  // Tiles up to 128 x 128 also ping-pong (two consumer warpgroups on alternate tiles).
  const Tile tiles[] = {{128, 256, 4}, {128, 192, 4}, {128, 128, 6}, {64, 256, 5}, {64, 128, 8}};
  struct Types {
    Type ab, out;
  };
  // fp8 in, bf16, f16 or f32 out, as cuBLAS takes them (its accumulator is f32 whatever out's type).
  const Types types[] = {{Type::BF16, Type::BF16}, {Type::BF16, Type::F32}, {Type::F16, Type::F16},
                         {Type::F16, Type::F32},   {Type::F32, Type::F32},  {Type::E4M3, Type::BF16},
                         {Type::E4M3, Type::F16},  {Type::E4M3, Type::F32}, {Type::E5M2, Type::BF16},
                         {Type::E5M2, Type::F16},  {Type::E5M2, Type::F32}};
  std::vector<HopperGemmConfig> out;
  for (const Types& t : types) {
    const bool wide = t.ab == Type::BF16 || t.ab == Type::F16;
    for (const Tile& tile : tiles) {
      for (codegen::Major am : {codegen::Major::K, codegen::Major::MN}) {
        for (codegen::Major bm : {codegen::Major::K, codegen::Major::MN}) {
          if (!wide && (am != codegen::Major::K || bm != codegen::Major::K) && t.ab != Type::F32) continue;
          for (Major om : {Major::Row, Major::Column}) {
            // tf32 with an M/N-major operand: only the kernel's A (A under a row-major out, B under a
            // column-major one), through registers (a_from_registers), 1x1, cooperative, ping-pong or split-K.
            const bool reg_a = t.ab == Type::F32 && (am != codegen::Major::K || bm != codegen::Major::K);
            if (reg_a && (om == Major::Row ? bm != codegen::Major::K : am != codegen::Major::K)) continue;
            // v: cluster_m, cluster_n, schedule (0 cooperative, 1 ping-pong, 2 split-K, 3 stream-K)
            for (std::array<int, 3> v :
                 {std::array<int, 3>{1, 1, 0}, {2, 1, 0}, {1, 2, 0}, {1, 1, 1}, {1, 1, 2}, {1, 1, 3}}) {
              const bool clustered = v[0] * v[1] > 1, pingpong = v[2] == 1, split_k = v[2] == 2, stream_k = v[2] == 3;
              if (reg_a && (clustered || stream_k)) continue;
              // split-K: every tile but 64x256; stream-K: 128x256, 128x128, 64x128
              if ((split_k || stream_k) && tile.m == 64 && tile.n == 256) continue;
              // 128x192: where 128x256 tiles leave a large part of the SMs idle (3072 x 768: 96
              // tiles against 72), cooperative, clustered and split-K (a cluster's multicast halves
              // the L2 reads that bound a wave of short tiles: 1504 x 2000 x 1000 1.12x faster)
              if (tile.n == 192 && stream_k) continue;
              if (clustered && tile.m != 128) continue;  // the large tiles, where L2 traffic limits
              if (pingpong && tile.m * tile.n > 128 * 128) continue;  // a warpgroup holds a whole tile
              HopperGemmConfig c;
              c.cluster_m = v[0];
              c.cluster_n = v[1];
              c.pingpong = pingpong;
              c.split_k = split_k;
              c.stream_k = stream_k;
              c.ab = t.ab;
              c.out = t.out;
              c.tile_m = tile.m;
              c.tile_n = tile.n;
              // A 64-row tile's second warpgroup brings its epilogue buffers: a stage fewer.
              c.stages = pingpong && tile.m == 64 ? tile.stages - 1 : tile.stages;
              c.a_major = am;
              c.b_major = bm;
              c.out_major = om;
              // Two CTAs along the kernel's M would each multicast 96 of the 192 rows of its B:
              // an M/N-major B moves in whole 64-element boxes (check()).
              const HopperGemmConfig k = kernel_config(c);
              if (tile.n == 192 && k.cluster_m == 2 && k.b_major == codegen::Major::MN) continue;
              out.push_back(c);
            }
          }
        }
      }
    }
  }
  // Swapped, for a few rows of A (decoding; 64x64 up to 128 tokens, where its 128 CTAs measured
  // 8% faster than 64 of 64x128): B's N on the wgmma's 64 rows, A's rows on an N of 8 to 64,
  // cooperative and split-K, a row-major out (stored M-contiguous as out^T), A K-major (on the
  // wgmma's N side: see check()). Stages: as many as fit, at most 16 (the bytes in flight that a
  // memory-bound step needs per SM).
  const std::array<int, 2> swapped_tiles[] = {{64, 8}, {64, 16}, {64, 32}, {64, 64}, {128, 16}, {128, 32}};
  for (const Types& t : types) {
    if (t.ab == Type::E5M2) continue;
    const bool wide = t.ab == Type::BF16 || t.ab == Type::F16;
    for (const std::array<int, 2>& tile : swapped_tiles) {
      for (codegen::Major bm : {codegen::Major::K, codegen::Major::MN}) {
        if (!wide && bm != codegen::Major::K) continue;
        for (bool split_k : {false, true}) {
          HopperGemmConfig c;
          c.ab = t.ab;
          c.out = t.out;
          c.b_major = bm;
          c.tile_m = tile[0];
          c.tile_n = tile[1];
          c.swap_ab = true;
          c.split_k = split_k;
          c.stages = 16;
          while (c.stages > 2 && c.shared_bytes() > 227 * 1024) --c.stages;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

std::vector<KernelPtr> HopperGemmClass::generate_kernels(const MetadataFilter& filter, std::optional<Epilogue> epilogue,
                                                         std::optional<int> cc) const {
  std::vector<KernelPtr> out;
  for (const HopperGemmConfig& c : configurations()) {
    // The metadata is built once (the registry makes every configuration at start-up).
    KernelMetadata md = hopper_gemm_metadata(c);
    if (admits(md, filter, epilogue, cc)) out.push_back(std::make_shared<HopperGemm>(c, std::move(md)));
  }
  return out;
}

HopperGemmConfig hopper_gemm_config(const Options& o) {
  HopperGemmConfig c;
  c.ab = codegen::parse_type(o.at("dtype"));
  c.out = codegen::parse_type(o.at("out"));
  c.a_major = o.at("a-major") == "k" ? codegen::Major::K : codegen::Major::MN;
  c.b_major = o.at("b-major") == "k" ? codegen::Major::K : codegen::Major::MN;
  c.out_major = o.at("out-major") == "n" ? Major::Row : Major::Column;
  c.tile_m = static_cast<int>(parse_integer("tile-m", o.at("tile-m"), 1, 1024));
  c.tile_n = static_cast<int>(parse_integer("tile-n", o.at("tile-n"), 1, 1024));
  c.stages = static_cast<int>(parse_integer("stages", o.at("stages"), 1, 64));
  c.cluster_m = static_cast<int>(parse_integer("cluster-m", o.at("cluster-m"), 1, 16));
  c.cluster_n = static_cast<int>(parse_integer("cluster-n", o.at("cluster-n"), 1, 16));
  c.pingpong = o.at("schedule") == "pingpong";
  c.split_k = o.at("schedule") == "split-k";
  c.stream_k = o.at("schedule") == "stream-k";
  auto swap = o.find("swap-ab");  // absent from options written before it was
  c.swap_ab = swap != o.end() && swap->second == "yes";
  return c;
}

Options hopper_gemm_options(const HopperGemmConfig& c) {
  // Emplaced, not from an initializer list (which copies every string): the registry builds these
  // for every configuration at start-up.
  Options o;
  o.emplace("dtype", codegen::ptx_name(c.ab));
  o.emplace("out", codegen::ptx_name(c.out));
  o.emplace("a-major", c.a_major == codegen::Major::K ? "k" : "m");
  o.emplace("b-major", c.b_major == codegen::Major::K ? "k" : "n");
  o.emplace("out-major", c.out_major == Major::Row ? "n" : "m");
  o.emplace("tile-m", std::to_string(c.tile_m));
  o.emplace("tile-n", std::to_string(c.tile_n));
  o.emplace("stages", std::to_string(c.stages));
  o.emplace("cluster-m", std::to_string(c.cluster_m));
  o.emplace("cluster-n", std::to_string(c.cluster_n));
  o.emplace("schedule", c.pingpong ? "pingpong" : c.split_k ? "split-k" : c.stream_k ? "stream-k" : "cooperative");
  o.emplace("swap-ab", c.swap_ab ? "yes" : "no");
  return o;
}

std::vector<OptionSpec> HopperGemmClass::options() const {
  return {{"dtype", {"bf16", "f16", "f32", "e4m3", "e5m2"}, "A and B (f32 is multiplied as tf32)"},
          {"out", {"bf16", "f16", "f32"}, "out's type (f32 accumulators)"},
          {"a-major", {"k", "m"}, "A's unit-stride mode: k (row-major A) or m; m only for bf16/f16"},
          {"b-major", {"k", "n"}, "B's unit-stride mode: k (column-major B) or n; n only for bf16/f16"},
          {"out-major", {"n", "m"}, "out's unit-stride mode: n (row-major) or m (column-major)"},
          {"tile-m", {"128", "64"}, "rows per tile: one consumer warpgroup per 64"},
          {"tile-n", {"128", "256", "64", "192", "8", "16", "32"},
           "columns per tile: the N of every wgmma (8, 16, 32: swapped, where it spans M)"},
          {"stages", {"4", "2", "3", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16"},
           "shared-memory stages"},
          {"cluster-m", {"1", "2"}, "CTAs per cluster along M (2: B multicast to the pair)"},
          {"cluster-n", {"1", "2"}, "CTAs per cluster along N (2: A multicast to the pair; not with cluster-m 2)"},
          {"schedule", {"cooperative", "pingpong", "split-k", "stream-k"},
           "consumer warpgroups on 64-row slabs of each tile, on alternate tiles (up to 128 x 128), "
           "cooperative on (tile, split of K) units, the splits a run-time argument (GemmArguments::split_k), or "
           "cooperative with the last tiles' k-tiles shared evenly by the CTAs (GemmArguments::stream_k_workers)"},
          {"swap-ab", {"no", "yes"},
           "yes: the kernel computes out^T = B^T A^T (tile-m spans N, tile-n M: for a few rows of A), "
           "cooperative or split-K"}};
}

KernelPtr HopperGemmClass::configure(const Options& options) const {
  const HopperGemmConfig c = hopper_gemm_config(options);
  c.check();
  return std::make_shared<HopperGemm>(c);
}

}  // namespace tessel::kernels
