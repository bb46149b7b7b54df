// gemm/packing.cpp: see packing.hpp.
#include "gemm/packing.hpp"

#include "tessel/kernels/gemm.hpp"

namespace tessel::kernels {

namespace {

// A packed operand's rows start on 128 bytes, not only the TMA's 16: a K-major tile whose rows
// lie an odd multiple of 16 bytes apart reads twice the L2 sectors in four times the requests
// (ncu on an H100: 1504 x 2000 x K, K = 1000, 1016 or 1032 against 1008 or 1024: 91 against 52 MB,
// 19.7 against 16.3 us), so the copy aligns what it writes.
constexpr int64_t kPitchBytes = 128;
constexpr int64_t kTmaBytes = 16;  // the TMA's rule for a base address and a stride
constexpr uint64_t kRegionAlign = 256;

int64_t round_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

bool broadcast(const TensorView& v) { return v.rank() == 3 && v.shape[0] > 1 && v.stride[0] == 0; }

// Whether the view has unit stride where `major` says, for its last two modes.
bool has_major(const TensorView& v, Major major) {
  if (major == Major::Any) return true;
  const int r = v.rank();
  if (r < 2) return false;
  const size_t unit = static_cast<size_t>(major == Major::Row ? r - 1 : r - 2);
  return v.stride[unit] == 1 || v.shape[unit] == 1;
}

// The view of `v`'s shape in `major`, rows (or columns) padded to kPitchBytes, at `at`; a broadcast
// batch stays one matrix.
TensorView packed_view(const TensorView& v, Major major, uint64_t at) {
  TensorView p;
  p.data = at;
  p.dtype = v.dtype;
  p.shape = v.shape;
  const int r = v.rank();
  const int64_t rows = v.shape[static_cast<size_t>(r - 2)], cols = v.shape[static_cast<size_t>(r - 1)];
  const int64_t per_pitch = std::max<int64_t>(1, kPitchBytes / codegen::bytes(v.dtype));
  int64_t matrix = 0;
  if (major == Major::Column) {
    const int64_t pitch = round_up(rows, per_pitch);
    p.stride = {1, pitch};
    matrix = pitch * cols;
  } else {
    const int64_t pitch = round_up(cols, per_pitch);
    p.stride = {pitch, 1};
    matrix = pitch * rows;
  }
  if (r == 3) p.stride.insert(p.stride.begin(), broadcast(v) ? 0 : round_up(matrix, per_pitch));
  return p;
}

// Bytes the packed view spans (one matrix where it broadcasts).
int64_t span(const TensorView& p) {
  int64_t last = 0;
  for (int i = 0; i < p.rank(); ++i) last += (p.shape[static_cast<size_t>(i)] - 1) * p.stride[static_cast<size_t>(i)];
  return (last + 1) * codegen::bytes(p.dtype);
}

// Elements the copy moves: the whole view, or one matrix where it broadcasts.
int64_t copied_elements(const TensorView& v) { return broadcast(v) ? v.size() / v.shape[0] : v.size(); }

}  // namespace

bool aligned_to(const TensorView& v, int64_t bytes) {
  const int64_t eb = codegen::bytes(v.dtype);
  if (v.data % static_cast<uint64_t>(bytes) != 0) return false;
  for (int i = 0; i < v.rank(); ++i) {
    const int64_t s = v.stride[static_cast<size_t>(i)];
    if (v.shape[static_cast<size_t>(i)] > 1 && s != 1 && (s * eb) % bytes != 0) return false;
  }
  return true;
}

bool tma_aligned(const TensorView& v) { return aligned_to(v, kTmaBytes); }

bool tma_aligned_in(const TensorView& v, Major major) {
  const int r = v.rank();
  if (major == Major::Any || r < 2) return tma_aligned(v);
  const int64_t eb = codegen::bytes(v.dtype);
  const int unit = major == Major::Row ? r - 1 : r - 2;
  if (v.data % static_cast<uint64_t>(kTmaBytes) != 0) return false;
  for (int i = 0; i < r; ++i)
    if (i != unit && v.shape[static_cast<size_t>(i)] > 1 && (v.stride[static_cast<size_t>(i)] * eb) % kTmaBytes != 0)
      return false;
  return true;
}

std::optional<Packing> plan_packing(const KernelMetadata& md, const GemmArguments& args, uint64_t workspace) {
  if (md.operation != Operation::Gemm || md.operands.size() != 3) return std::nullopt;
  const OperandAttributes &ma = md.operand("A"), &mb = md.operand("B"), &mo = md.operand("out");
  if (args.A.dtype != ma.dtype || args.B.dtype != mb.dtype || args.out.dtype != mo.dtype) return std::nullopt;
  for (const TensorView* v : {&args.A, &args.B, &args.out})
    if ((v->rank() != 2 && v->rank() != 3) || v->stride.size() != v->shape.size()) return std::nullopt;
  if (args.C && (args.C->rank() != args.out.rank() || args.C->stride.size() != args.C->shape.size()))
    return std::nullopt;
  Packing p;
  p.packed_args = args;
  uint64_t offset = 0;
  auto place = [&](int which, const TensorView& v, Major major) {
    p.packed[static_cast<size_t>(which)] = true;
    TensorView view = packed_view(v, major, workspace + offset);
    offset = round_up(static_cast<int64_t>(offset + static_cast<uint64_t>(span(view))), kRegionAlign);
    p.views[static_cast<size_t>(which)] = view;
    return view;
  };
  auto fits = [](const TensorView& v, Major major) { return has_major(v, major) && tma_aligned_in(v, major); };
  // A copy into another major than the view's reads (or writes) across its unit stride.
  auto count = [&](const TensorView& v, Major major) {
    const int64_t bytes = copied_elements(v) * codegen::bytes(v.dtype);
    p.copied_bytes += bytes;
    if (!has_major(v, major)) p.transposed_bytes += bytes;
    ++p.copies;
  };
  if (!fits(args.A, ma.major)) {
    p.packed_args.A = place(kPackA, args.A, ma.major);
    count(args.A, ma.major);
  }
  if (!fits(args.B, mb.major)) {
    p.packed_args.B = place(kPackB, args.B, mb.major);
    count(args.B, mb.major);
  }
  // An out off the TMA's granules the kernel stores element by element (kHopperGemmElementwiseOut):
  // only its major, and its element size, are rules.
  const bool out_fits = has_major(args.out, mo.major) && aligned_to(args.out, codegen::bytes(args.out.dtype));
  if (!out_fits) {
    p.packed_args.out = place(kPackOut, args.out, mo.major);
    const int64_t bytes = args.out.size() * codegen::bytes(args.out.dtype);  // the copy back
    p.copied_bytes += bytes;
    if (!has_major(args.out, mo.major)) p.transposed_bytes += bytes;
    ++p.copies;
  }
  // C: read only when beta != 0. The kernel takes a C of its own in either major if it can read it:
  // through the TMA, or line by line off the TMA's granules (KernelMetadata::c_alignment); the
  // caller's out, when out itself is computed in the workspace.
  if (args.beta != 0) {
    const TensorView& c = args.c();
    // (A batch stride, which every line of a batch moves by, stays a multiple of 16 bytes.)
    const bool batch_ok = c.rank() < 3 || c.shape[0] <= 1 || (c.stride[0] * codegen::bytes(c.dtype)) % kTmaBytes == 0;
    const bool c_fits =
        (has_major(c, Major::Row) || has_major(c, Major::Column)) && aligned_to(c, md.c_alignment) && batch_ok;
    if (c_fits) {
      if (!out_fits || args.distinct_c()) p.packed_args.C = c;
      else p.packed_args.C.reset();  // C is out, in place
    } else {
      // In C's own major where it has one (the kernel loads C in either major, so the copy only
      // pads rows), but for a tile narrower than the 128 bytes of N in which the kernel loads a C of
      // the other major (a swapped one's): out's major then.
      const Major own = has_major(c, Major::Row) ? Major::Row : has_major(c, Major::Column) ? Major::Column : mo.major;
      const bool narrow = int64_t{md.design.tile[1]} * codegen::bytes(c.dtype) < 128;
      const Major major = narrow ? mo.major : own;
      p.packed_args.C = place(kPackC, c, major);
      count(c, major);
    }
  } else {
    p.packed_args.C.reset();
  }
  if (p.copies == 0) return std::nullopt;  // nothing to copy: the kernel refuses for another reason
  p.workspace_bytes = offset;
  return p;
}

}  // namespace tessel::kernels
