// elementwise.hpp: C = op(A, B) over tensors of rank 1 to 4 with any strides: the CuTe DSL
// `elementwise_add` example made general. Each tensor is zipped_divide'd by a tile; a TV layout
// from make_layout_tv(thr, val), ordered to follow the contiguous mode, gives each thread
// `rows` vectors of `vector` elements; an identity tensor divided the same way predicates the
// ragged edges. Full vectors move with ld/st.global.v4 (or narrower) where the algebra proves
// them contiguous and aligned; a thread whose tile hangs over an edge takes a per-element path.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessel/codegen/launch_plan.hpp"
#include "tessel/kernels/options.hpp"
#include "tessel/kernels/tensor_view.hpp"
#include "tessel/runtime/stream.hpp"

namespace tessel::kernels {

// Binary: add, sub, mul, div, min, max, axpby (alpha*A + beta*B). Unary (B unused): copy, neg,
// abs, relu.
enum class ElementwiseOp : uint8_t { Add, Sub, Mul, Div, Min, Max, Axpby, Copy, Neg, Abs, Relu };
bool is_unary(ElementwiseOp op);
const char* op_name(ElementwiseOp op);                     // "add"
ElementwiseOp parse_elementwise_op(const std::string& s);  // throws naming the valid ones

// The arguments of one elementwise launch. A, B and C have the same shape and element type
// (f32, f16, bf16, f64, s32 or s8); B is ignored by unary operations; alpha and beta are used
// by axpby only (integers for s32 and s8). C may be A or B exactly (in place), but not overlap
// them otherwise; inputs may broadcast (stride 0), C may not.
struct ElementwiseArguments {
  ElementwiseOp op = ElementwiseOp::Add;
  TensorView A, B, C;
  double alpha = 1.0, beta = 1.0;
};

// One generated kernel. Tensors are indexed by their own strides, with the shape shared.
struct ElementwiseConfig {
  ElementwiseOp op = ElementwiseOp::Add;
  codegen::Type dtype = codegen::Type::F32;
  int rank = 1;   // 1..4
  int major = 0;  // the mode the tile follows as contiguous (warp lanes and vectors run along it)
  // Per tensor (A, B, C): its stride in the major mode is the static 1. Otherwise that stride is
  // a parameter, and the tensor moves element by element.
  std::array<bool, 3> unit{true, true, true};
  // Per input (A, B): staged through shared memory. The input is unit-stride in mode second()
  // instead (a transposed input: a packed GEMM operand's other major); its tile is read with the
  // warp's lanes along that mode (coalesced), written to shared memory, and each thread takes its
  // values from there in the tile's order. Needs rank >= 2 and warps x rows = 32 (the tile's
  // extent along second()); without it such an input moves element by element across its rows.
  std::array<bool, 3> staged{false, false, false};
  // Elements per load of a staged input along second() (a power of two; the host takes 4-byte words
  // where the input's address and strides allow: 4 s8 or 2 f16 per load, not 1).
  int stage_vector = 1;
  int vector = 1;           // elements per vector access: a power of two, at most 16 bytes
  int rows = 1;             // vectors per thread (independent loads in flight)
  int threads = 128;        // per block: a multiple of 32
  bool wide_index = false;  // s64 offsets and coordinates (else s32: every offset fits)
  bool nc = false;          // inputs through ld.global.nc (C aliases neither input)
  // Edge tiles shifted back inside the shape: a tile's origin is min(t x tile, extent - tile) in
  // each mode the tile spans, so every tile is whole and the kernel has no ragged path (its
  // element-by-element code held a register per element and predicate: 165 registers for the
  // staged s8 copy, 32 without it). The last tile of a mode overlaps the one before it, whose
  // elements it writes again with the same values: needs nc (C aliases no input), and extents at
  // least the tile's, the major extent a multiple of `vector` and, staged, the second a multiple
  // of `stage_vector` (the host checks them; the name ends in _ov).
  bool shifted = false;
  // A static kernel: the shape and the three tensors' strides are baked in (empty: dynamic,
  // passed as parameters).
  std::vector<int64_t> static_shape;
  std::array<std::vector<int64_t>, 3> static_stride;

  bool is_static() const { return !static_shape.empty(); }
  int second() const;  // the mode the warps and the rows run along (rank >= 2)
  // The tile each block covers per step, mode by mode (1 outside major and second).
  std::vector<int64_t> tile() const;
  int64_t tile_elements() const;
  std::string name() const;  // tessel_elementwise_add_f32_r2_m1_uuu_v4_r4_t128_i32[_nc][_ov][_s<hash>] (t: staged)
};

// The kernel: parameters A, [B,] C (u64), [alpha, beta (f32, f64 or s32),] then, when dynamic,
// the extents (rank, s32 or s64) and each tensor's non-unit strides (in elements), then ntiles.
// Each block walks tiles blockIdx.x, blockIdx.x + gridDim.x, ... < ntiles.
codegen::Module elementwise_kernel(const ElementwiseConfig& c);

// A staged configuration's values per thread (vector x rows) at most: 64 for a unary op (s8's
// 16-byte vectors over the staged tile's 8 rows, 128 values, spilled registers in ptxas; 64 did
// not), 32 for a binary one, which holds A's and B's values at once (the bf16 add at 64 spilled
// 36 bytes through LLVM's road).
int max_staged_values(ElementwiseOp op);

// A staged configuration's shared-memory stores: the byte offset in the staged tile of each
// thread's value v, thread-major (threads x vector x rows), as elementwise_kernel stages them
// (the same layouts). Tests check each warp's stores of one value against the 32 banks.
std::vector<int64_t> staged_store_offsets(const ElementwiseConfig& c);

// Why configuration `c` with shifted edge tiles cannot take a problem of this shape ("" when it
// can): an extent below the tile's, a major extent that is not a multiple of the vector, or a
// staged mode's extent that is not one of the stage vector. The kernel (static shapes), the host's
// choice and its plan's checks all ask here.
std::string shifted_extent_refusal(const ElementwiseConfig& c, const std::vector<int64_t>& shape);

// Completes a configuration whose `staged` inputs are chosen: rows = 32 / warps (the staged tile's
// 32 elements along second()), the vector halved to max_staged_values, and the staged inputs' load
// width: 4-byte words (4 / element size, at least 1) halved until fits(x, w) holds for every staged
// input x (its address and strides allow w) and the warps divide the tile's lanes (32 x vector /
// (warps x w) whole). The host and `tessel dump`'s options both end here.
void complete_staged_config(ElementwiseConfig& c, const std::function<bool(int, int)>& fits);

// How a launch is chosen: the config (from the arguments' ranks, strides, alignment and
// aliasing), the grid and the parameter values. Throws tessel::Error for invalid arguments,
// naming the operand, the value and the rule. check_device_memory: each operand's span must lie
// inside one device allocation (needs the driver).
struct ElementwiseOptions {
  int threads = 128;
  // Vectors per thread (independent loads in flight); 0: enough for 16 bytes per operand (1 for
  // 16-byte vectors, which measured fastest on an H100; up to 8 for narrower ones, which a pitch
  // or address the 16 bytes do not divide forces: docs/performance.md, session 40).
  int rows = 0;
  int max_blocks = 0;  // 0: as many blocks as tiles, capped at 2^31 - 1; else at most this many
  // Transposed inputs through shared memory where they qualify (ElementwiseConfig::staged); false:
  // element by element across their rows (the path before staging, kept to compare against).
  bool stage = true;
  bool check_device_memory = true;
};
// The problem after validation: modes of extent 1 dropped and modes merged where all three
// tensors allow it (A, B and C share one shape). Empty shape: nothing to do.
struct ElementwiseProblem {
  ElementwiseArguments args;  // the normalised views (same addresses)
  std::vector<int64_t> shape;
  bool empty() const;
};
ElementwiseProblem normalize_elementwise(const ElementwiseArguments& args);
ElementwiseConfig choose_elementwise_config(const ElementwiseProblem& p, const ElementwiseOptions& o = {});
// The launch plan (module, grid, block, parameters) for the arguments; grid 0 when empty.
codegen::LaunchPlan elementwise_plan(const ElementwiseArguments& args, const ElementwiseOptions& o = {});
// The same without the module: what a launch of the already loaded kernel needs (Kernel::run).
// Arguments of a form seen before (the same operation, options, layouts, addresses modulo 16 and
// aliasing) reuse that form's plan: only the checks that read addresses and values run again.
codegen::LaunchPlan elementwise_launch_plan(const ElementwiseArguments& args, const ElementwiseOptions& o = {});
// The configuration elementwise_plan chooses for `args` (nullopt: an empty problem), from the same
// cache; throws what elementwise_plan throws.
std::optional<ElementwiseConfig> elementwise_config_for(const ElementwiseArguments& args,
                                                        const ElementwiseOptions& o = {});
// The plan of a given configuration (`tessel run`, tests): the arguments as they are (not
// normalised), checked against what the kernel assumes (rank, unit strides, vector alignment,
// static shape, index width); throws naming the first mismatch.
codegen::LaunchPlan elementwise_plan(const ElementwiseConfig& c, const ElementwiseArguments& args,
                                     const ElementwiseOptions& o = {});

// C = op(A, B) on the GPU, queued on `stream`. A zero-size problem does nothing.
void elementwise(const ElementwiseArguments& args, rt::StreamRef stream = {}, const ElementwiseOptions& o = {});

// The host reference: C = op(A, B) computed on host copies of the operands' buffers; each view's
// `data` is its byte offset in its buffer. Floats in float (f32, f16, bf16; correctly rounded,
// see kernels/src/elementwise/reference.cpp) or double (f64), rounded once to the element type; axpby is
// fma(alpha, a, beta*b) in that type, as the kernel computes it. Integers wrap in 32 bits.
void elementwise_reference(const ElementwiseArguments& args, const std::vector<uint8_t>& a,
                           const std::vector<uint8_t>& b, std::vector<uint8_t>& c);

// The class form `tessel dump elementwise --op add --dtype f16 --rank 3 ...`: its options, a
// configuration from a complete set of them, and the option sets listed beside the catalog's
// entries (elementwise_variants: forms the entries choose at run time). elementwise_config_of
// (catalog.hpp) gives the configuration of an elementwise kernel object.
std::vector<OptionSpec> elementwise_options();
ElementwiseConfig elementwise_config(const Options& o);
std::vector<Options> elementwise_variants();


}  // namespace tessel::kernels

namespace tessel {
// tessel::elementwise(op, A, B, C, stream): the host API of the elementwise kernels.
inline void elementwise(kernels::ElementwiseOp op, const kernels::TensorView& A, const kernels::TensorView& B,
                        const kernels::TensorView& C, rt::StreamRef stream = {}) {
  kernels::elementwise(kernels::ElementwiseArguments{op, A, B, C}, stream);
}
}  // namespace tessel
