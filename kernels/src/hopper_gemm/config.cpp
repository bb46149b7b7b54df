// hopper_gemm/config.cpp: the Hopper GEMM's configuration: its rules, name and sizes.
#include <string>
#include <utility>

#include "hopper_gemm/shared_storage.hpp"
#include "sm90/stage_layout.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/kernels/hopper_gemm.hpp"

namespace tessel::kernels {

using namespace codegen;
using sm90::kSwizzleRow;

namespace {

const char* major_letter(codegen::Major m, bool is_a) { return m == codegen::Major::K ? "k" : is_a ? "m" : "n"; }

}  // namespace

Type HopperGemmConfig::mma_type() const { return ab == Type::F32 ? Type::TF32 : ab; }
int HopperGemmConfig::tile_k() const { return kSwizzleRow / bytes(ab); }
int HopperGemmConfig::a_stage_bytes() const { return tile_m * kSwizzleRow; }
int HopperGemmConfig::b_stage_bytes() const { return tile_n * kSwizzleRow; }
// The regions' end, and the base's alignment as slack (the driver aligns dynamic shared memory to
// 16 bytes only; the kernel rounds its base up).
int HopperGemmConfig::shared_bytes() const {
  const HopperGemmSharedStorage storage(*this);
  return static_cast<int>(storage.bytes + storage.align);
}

std::string HopperGemmConfig::name() const {
  return std::string("tessel_hopper_gemm_") + ptx_name(ab) + "_" + ptx_name(out) + "_" + std::to_string(tile_m) + "x" +
         std::to_string(tile_n) + "x" + std::to_string(tile_k()) + "_s" + std::to_string(stages) + "_" +
         major_letter(a_major, true) + major_letter(b_major, false) + (out_major == Major::Row ? "r" : "c") +
         (cluster_size() > 1 ? "_c" + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) : "") +
         (pingpong ? "_pp" : "") + (split_k ? "_sk" : "") + (stream_k ? "_streamk" : "") + (swap_ab ? "_swap" : "");
}

void HopperGemmConfig::check() const {
  const std::string who = "hopper_gemm " + name() + ": ";
  if (ab != Type::BF16 && ab != Type::F16 && ab != Type::F32 && !is_fp8(ab))
    fail(who + "input type " + ptx_name(ab) + " (bf16, f16, f32 as tf32, e4m3 or e5m2)");
  if (out != Type::BF16 && out != Type::F16 && out != Type::F32)
    fail(who + "output type " + ptx_name(out) + " (bf16, f16 or f32)");
  if ((a_major == codegen::Major::MN || b_major == codegen::Major::MN) && ab != Type::BF16 && ab != Type::F16) {
    const HopperGemmConfig k = kernel_config(*this);
    if (ab != Type::F32 || k.b_major == codegen::Major::MN || swap_ab)
      fail(who + "M/N-major operands need bf16 or f16 (wgmma transposes only 16-bit types), or tf32 with only the "
                 "operand on the kernel's A side M-major (its fragments through registers: A under a row-major out, "
                 "B under a column-major one)");
    if (cluster_size() > 1 || stream_k)
      fail(who + "tf32 with an M/N-major operand (A through registers) " +
           (stream_k ? std::string("with stream-K") : "in a cluster") + " (not implemented)");
  }
  if (out_major == Major::Any) fail(who + "out must be row or column major");
  if (tile_m != 64 && tile_m != 128) fail(who + "tile_m " + std::to_string(tile_m) + " (64 or 128)");
  if (!swap_ab && tile_n != 64 && tile_n != 128 && tile_n != 192 && tile_n != 256)
    fail(who + "tile_n " + std::to_string(tile_n) + " (64, 128, 192 or 256; 8, 16 or 32 only swapped)");
  if (swap_ab && tile_n != 8 && tile_n != 16 && tile_n != 32 && tile_n != 64)
    fail(who + "tile_n " + std::to_string(tile_n) + " swapped (8, 16, 32 or 64: the few rows of A)");
  if (swap_ab && (pingpong || stream_k || cluster_size() > 1))
    fail(who + "a swapped kernel (swap_ab) " + (pingpong ? "with ping-pong" : stream_k ? "with stream-K" : "in a cluster") +
         " (not implemented: swapped kernels are cooperative or split-K, 1x1)");
  // The operand on the wgmma's N side: M/N-major only in whole 128-byte chunks of its tile_n rows.
  if (const HopperGemmConfig k = kernel_config(*this);
      k.b_major == codegen::Major::MN && tile_n % (kSwizzleRow / bytes(ab)) != 0)
    fail(who + (runs_transposed(*this) ? "an M-major A" : "an N-major B") + " with tile_n " + std::to_string(tile_n) +
         " (the kernel's B, " + (runs_transposed(*this) ? "A^T" : "B") + ", M/N-major needs tile_n a multiple of " +
         std::to_string(kSwizzleRow / bytes(ab)) + ": whole 128-byte boxes; K-major takes any)");
  if (stages < 2) fail(who + std::to_string(stages) + " stages (at least 2)");
  if (pingpong && tile_m == 128 && tile_n > 128)
    fail(who + "ping-pong with a 128 x " + std::to_string(tile_n) +
         " tile (at most 128 x 128: one warpgroup holds a whole tile's accumulators, 128 registers a thread)");
  if (pingpong && cluster_size() > 1) fail(who + "ping-pong in a cluster (not implemented: 1x1 only)");
  if (split_k && pingpong) fail(who + "split-K with ping-pong (not implemented: split-K is cooperative)");
  if (stream_k && pingpong) fail(who + "stream-K with ping-pong (not implemented: stream-K is cooperative)");
  if (stream_k && split_k) fail(who + "stream-K and split-K together (one schedule at a time)");
  if (stream_k && cluster_size() > 1)
    fail(who + "stream-K in a cluster " + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) +
         " (not implemented: 1x1 only)");
  if (split_k && cluster_size() > 1)
    fail(who + "split-K in a cluster " + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) +
         " (not implemented: 1x1 only)");
  if (cluster_m != 1 && cluster_m != 2) fail(who + "cluster_m " + std::to_string(cluster_m) + " (1 or 2)");
  if (cluster_n != 1 && cluster_n != 2) fail(who + "cluster_n " + std::to_string(cluster_n) + " (1 or 2)");
  if (cluster_size() > 2)
    fail(who + "cluster " + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) +
         " (1x1, 2x1 or 1x2: at most 2 CTAs per cluster)");
  // Each CTA of a cluster loads a share of the operand it multicasts: an M/N-major share is whole
  // 128-byte box rows of M (N). A column-major out runs as out^T = B^T A^T (kernel_config),
  // where A's tile spans tile_n and B's tile_m: the rule holds for the kernel that runs.
  const int chunk = kSwizzleRow / bytes(ab);
  const bool col = runs_transposed(*this);
  const char* a_tile = col ? "tile_n" : "tile_m";
  const char* b_tile = col ? "tile_m" : "tile_n";
  const std::string swapped = col ? ", as the kernel of out^T = B^T A^T runs it" : "";
  if (a_major == codegen::Major::MN && ((col ? tile_n : tile_m) / cluster_n) % chunk != 0)
    fail(who + "an M-major A with cluster_n " + std::to_string(cluster_n) + " needs " + a_tile + " a multiple of " +
         std::to_string(chunk * cluster_n) + " (each CTA multicasts " + a_tile + " / cluster_n rows of A, in " +
         std::to_string(chunk) + "-element boxes" + swapped + ")");
  if (b_major == codegen::Major::MN && ((col ? tile_m : tile_n) / cluster_m) % chunk != 0)
    fail(who + "an N-major B with cluster_m " + std::to_string(cluster_m) + " needs " + b_tile + " a multiple of " +
         std::to_string(chunk * cluster_m) + " (each CTA multicasts " + b_tile + " / cluster_m rows of B, in " +
         std::to_string(chunk) + "-element boxes" + swapped + ")");
  if (shared_bytes() > 227 * 1024)
    fail(who + std::to_string(shared_bytes()) + " bytes of shared memory (an sm_90 block has at most 232448)");
}

bool a_from_registers(const HopperGemmConfig& c) {
  const HopperGemmConfig k = kernel_config(c);
  return k.ab == Type::F32 && k.a_major == codegen::Major::MN;
}

bool runs_transposed(const HopperGemmConfig& c) { return (c.out_major == Major::Column) != c.swap_ab; }

HopperGemmConfig kernel_config(const HopperGemmConfig& c) {
  HopperGemmConfig t = c;
  if (runs_transposed(c)) {
    std::swap(t.a_major, t.b_major);
    std::swap(t.cluster_m, t.cluster_n);
  }
  t.out_major = c.swap_ab ? Major::Column : Major::Row;
  t.swap_ab = false;
  return t;
}

}  // namespace tessel::kernels
