// gemm/packing.hpp: how a tensor-core GEMM kernel can run operands it does not take as they lie:
// each such operand copied into the workspace in the kernel's major, rows padded to 16 bytes (what
// TMA needs), and an out of the other major computed there and copied back (an out in the kernel's
// major but off the granules it stores element by element itself).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "tessel/kernels/catalog.hpp"

namespace tessel::kernels {

struct Packing {
  std::array<bool, 4> packed{};           // A, B, C, out (GemmOperand)
  std::array<TensorView, 4> views;        // the workspace views of the packed ones
  GemmArguments packed_args;              // what the GEMM kernel runs
  std::size_t workspace_bytes = 0;
  int64_t copied_bytes = 0;               // bytes the copies move (each read once, written once)
  int64_t transposed_bytes = 0;           // of those, bytes copied into another major (strided reads)
  int copies = 0;                         // copy launches
};

// The copies that let `md`'s kernel run `args`, with the workspace at `workspace`; nullopt when
// no copy helps (other types, ranks, shapes: the kernel's supports() says why). The kernel's
// supports() must still be asked about packed_args.
std::optional<Packing> plan_packing(const KernelMetadata& md, const GemmArguments& args, uint64_t workspace = 0);

// Where a choice's split-K workspace starts, after `copies` bytes of copies (256-byte aligned).
inline std::size_t split_k_workspace_offset(std::size_t copies) { return (copies + 255) / 256 * 256; }

// Whether TMA can describe the view: its address and every stride of a mode longer than 1 (but the
// unit one) multiples of 16 bytes.
bool tma_aligned(const TensorView& v);
// The same read in `major` (Row: unit stride in the last mode): every mode but that one is a pitch,
// a stride of 1 too. A (106, 1) M-major A, strides (1, 106), has unit stride in K as well (K is 1),
// but a K-major kernel's TMA then steps 1 byte from row to row, which it cannot.
bool tma_aligned_in(const TensorView& v, Major major);
// Whether the view's address and every stride past its unit one are multiples of `bytes`.
bool aligned_to(const TensorView& v, int64_t bytes);

}  // namespace tessel::kernels
