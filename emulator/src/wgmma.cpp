// wgmma.cpp: wgmma.mma_async of one warpgroup: checked when issued (A from registers read then),
// computed when wgmma.wait_group needs its group (block.hpp: the shared-memory operands are read
// and the accumulators updated then; reading them in between is undefined in the PTX anyway).
// Written from the PTX ISA 9.0 §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
// the matrix descriptor, the canonical shared-memory layouts, the register fragments of A and D,
// independently of codegen's canonical_operand_layout / make_matrix_descriptor /
// wgmma_accumulator_layout, so that a bug in those shows up as a wrong product here.
#include <cmath>
#include <cstring>
#include <vector>

#include "block.hpp"
#include "fault.hpp"
#include "float.hpp"
#include "swizzle.hpp"

namespace tessel::emu::detail {

using namespace codegen;

namespace {

inline uint64_t value(const uint64_t* R, const Src& s) { return s.imm ? s.value : R[s.slot]; }

// PTX ISA §9.7.15.5.1 "Matrix Descriptor Format": start address bits 0-13, leading dimension
// byte offset 16-29, stride dimension byte offset 32-45 (each encoded >> 4), matrix base offset
// 49-51, swizzle mode 62-63 (0 none, 1 128B, 2 64B, 3 32B).
struct Descriptor {
  uint32_t start = 0, lbo = 0, sbo = 0;
  int span = 16;  // the swizzle width in bytes (16: none)
};

Descriptor decode_descriptor(uint64_t v, const char* which) {
  Descriptor d;
  d.start = static_cast<uint32_t>(v & 0x3fff) << 4;
  d.lbo = static_cast<uint32_t>((v >> 16) & 0x3fff) << 4;
  d.sbo = static_cast<uint32_t>((v >> 32) & 0x3fff) << 4;
  const uint64_t base = (v >> 49) & 7, mode = v >> 62;
  const uint64_t reserved = v & ~(uint64_t{0x3fff} | uint64_t{0x3fff} << 16 | uint64_t{0x3fff} << 32 |
                                  uint64_t{7} << 49 | uint64_t{3} << 62);
  if (reserved) {
    fault("invalid matrix descriptor", std::string("the descriptor of ") + which + " " + hex(v) +
                                           " sets reserved bits " + hex(reserved));
  }
  if (base != 0) {
    fault("not emulated yet", std::string("the descriptor of ") + which + " " + hex(v) + " has matrix base offset " +
                                  std::to_string(base) + " (only 0: patterns aligned to their repeat)");
  }
  d.span = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 16;
  return d;
}

// The shared byte address of element (mn, k) of an operand (MN = M for A, N for B) of e-byte
// elements, T = 16 / e elements per 16-byte core-matrix row; PTX ISA §9.7.15.5.1 "Shared Memory
// Matrix Layout" (core matrices of 8 rows x 16 bytes; in CuTe notation, offsets in elements):
//   K-major, no swizzle:  ((8,m),(T,2k)) : ((T,SBO),(1,LBO))
//   K-major, W-byte:      ((8,m),(T,2k)) : ((W/16*T,SBO),(1,T))   (K of one wgmma is 32 bytes <= W)
//   MN-major, no swizzle: ((T,1,m),(8,k)) : ((1,T,SBO),(T,LBO))
//   MN-major, W-byte:     ((T,W/16,m),(8,k)) : ((1,T,LBO),(W/16*T,SBO))
// then the W-byte swizzle on the address (swizzle.hpp).
uint32_t operand_address(const Descriptor& d, bool mn_major, int e, int mn, int k) {
  const uint32_t W = static_cast<uint32_t>(d.span), T = 16 / static_cast<uint32_t>(e);
  const uint32_t M = static_cast<uint32_t>(mn), K = static_cast<uint32_t>(k), E = static_cast<uint32_t>(e);
  uint32_t off;
  if (!mn_major) {
    off = W == 16 ? (M % 8) * 16 + (M / 8) * d.sbo + (K % T) * E + (K / T) * d.lbo
                  : (M % 8) * W + (M / 8) * d.sbo + K * E;
  } else {
    const uint32_t per_row = W / E;  // MN elements in one W-byte row
    off = W == 16 ? (M % T) * E + (M / T) * d.sbo + (K % 8) * 16 + (K / 8) * d.lbo
                  : (M % per_row) * E + (M / per_row) * d.lbo + (K % 8) * W + (K / 8) * d.sbo;
  }
  return swizzle_address(d.start + off, swizzle_bits(W));
}

// The exact value of an operand element's bits (codegen/number_format.hpp; a .tf32 operand's low 13
// bits are ignored).
double element_value(uint32_t bits, Type t) {
  if (t != Type::F16 && t != Type::BF16 && t != Type::TF32 && !is_fp8(t))
    fault("not emulated yet", std::string("wgmma inputs of type ") + ptx_name(t));
  return codegen::decode(number_format(t), bits);
}

}  // namespace

void BlockRunner::wgmma(const Decoded& d, uint32_t first) {
  const Program& P = L_.program;
  const RegList& list = P.lists.at(d.list);
  const Type at = d.type2, dt = d.type;
  const int ea = bytes(at);
  const int N = d.n, K = 32 / ea;
  const bool fp16 = at == Type::F16 || at == Type::BF16;
  if (N < 8 || N > 256 || N % 8 != 0) fault("invalid wgmma", "N = " + std::to_string(N) + " (a multiple of 8 in [8, 256])");
  if (dt != Type::F32 && dt != Type::F16) fault("not emulated yet", std::string("wgmma accumulators of type ") + ptx_name(dt));
  const size_t nacc = dt == Type::F32 ? N / 2 : N / 4;
  if (list.acc.size() != nacc) {
    fault("invalid wgmma", std::to_string(list.acc.size()) + " accumulator registers for m64n" + std::to_string(N) +
                               " with ." + ptx_name(dt) + " accumulators (" + std::to_string(nacc) + ")");
  }
  // The operands other than A's registers are the same in every thread of the warpgroup.
  const uint64_t* R0 = regs(first);
  for (uint32_t u = first + 1; u < first + 128; ++u) {
    const uint64_t* R = regs(u);
    for (int j = 0; j < 7; ++j) {
      if (value(R, d.src[j]) != value(R0, d.src[j])) {
        static const char* names[] = {"A's descriptor", "B's descriptor", "scale-d", "imm-scale-a",
                                      "imm-scale-b",    "imm-trans-a",    "imm-trans-b"};
        fault("non-uniform wgmma operand", std::string(names[j]) + " of thread " + thread_name(u) + " is " +
                                               hex(value(R, d.src[j])) + ", of thread " + thread_name(first) + " " +
                                               hex(value(R0, d.src[j])) + " (every thread of the warpgroup gives the same)");
      }
    }
  }
  const bool scale_d = (value(R0, d.src[2]) & 1) != 0;
  const int64_t scale_a = static_cast<int32_t>(value(R0, d.src[3])), scale_b = static_cast<int32_t>(value(R0, d.src[4]));
  const uint64_t trans_a = value(R0, d.src[5]), trans_b = value(R0, d.src[6]);
  if ((scale_a != 1 && scale_a != -1) || (scale_b != 1 && scale_b != -1)) {
    fault("invalid wgmma", "imm-scale-a " + std::to_string(scale_a) + ", imm-scale-b " + std::to_string(scale_b) + " (1 or -1)");
  }
  if (trans_a > 1 || trans_b > 1 || (!fp16 && (trans_a || trans_b))) {
    fault("invalid wgmma", "imm-trans-a " + std::to_string(trans_a) + ", imm-trans-b " + std::to_string(trans_b) +
                               " (0 or 1, and 1 only for .f16/.bf16 inputs)");
  }

  // Decoded now for their errors; read when performed.
  const Descriptor db_check = decode_descriptor(value(R0, d.src[1]), "B");
  (void)db_check;
  PendingWgmma p;
  p.d = &d;
  p.first = first;
  p.desc_a = value(R0, d.src[0]);
  p.desc_b = value(R0, d.src[1]);
  p.scale_d = scale_d;
  p.scale_a = scale_a;
  p.scale_b = scale_b;
  p.trans_a = trans_a;
  p.trans_b = trans_b;
  if (list.a.empty()) {
    decode_descriptor(value(R0, d.src[0]), "A");
  } else {
    p.a.resize(static_cast<size_t>(64 * K));
    // PTX ISA §9.7.15.5.2 "Register Fragments", A of .m64nNk16/k8/k32: register r (of 4) of thread
    // t holds the 4 bytes of row 16*(t/32) + (t%32)/4 + 8*(r%2) at K bytes 4*(t%4) + 16*(r/2) ..+3
    // (f16/bf16: a0..a7 at column 2*(t%4) + i%2 + 8*(i/4); tf32: column t%4 + 4*(i/2); fp8:
    // column 4*(t%4) + i%4 + 16*(i/8)), the lowest K in the low bits.
    for (uint32_t u = 0; u < 128; ++u) {
      const uint64_t* R = regs(first + u);
      for (int r = 0; r < 4; ++r) {
        const uint32_t word = static_cast<uint32_t>(value(R, list.a[size_t(r)]));
        const int row = 16 * int(u / 32) + int(u % 32) / 4 + 8 * (r % 2);
        const int kbyte = 4 * int(u % 4) + 16 * (r / 2);
        for (int j = 0; j < 4 / ea; ++j) {
          const uint32_t bits = (word >> (8 * ea * j)) & (ea == 4 ? 0xffffffffu : (1u << (8 * ea)) - 1);
          p.a[size_t(row * K + kbyte / ea + j)] = element_value(bits, at);
        }
      }
    }
  }
  wgmma_[first / 128].open.push_back(std::move(p));
  ++L_.stats.wgmmas;
}

void BlockRunner::perform_wgmma(const PendingWgmma& p) {
  const Decoded& d = *p.d;
  const uint32_t first = p.first;
  const Program& P = L_.program;
  const RegList& list = P.lists.at(d.list);
  const Type at = d.type2, bt = d.type3, dt = d.type;
  const int ea = bytes(at), eb = bytes(bt);
  const int N = d.n, K = 32 / ea;
  const bool scale_d = p.scale_d;
  const int64_t scale_a = p.scale_a, scale_b = p.scale_b;
  const uint64_t trans_a = p.trans_a, trans_b = p.trans_b;
  // Operands as exact values: A 64 x K, B N x K (B's MN is N).
  std::vector<double> A(static_cast<size_t>(64 * K)), B(static_cast<size_t>(N * K));
  auto read = [&](uint32_t addr, int e) {
    uint32_t bits = 0;
    shared_.check_async_read(addr, static_cast<uint32_t>(e), "wgmma");
    shared_.load(addr, &bits, static_cast<uint32_t>(e), first, false);
    return bits;
  };
  if (list.a.empty()) {
    const Descriptor da = decode_descriptor(p.desc_a, "A");
    for (int m = 0; m < 64; ++m)
      for (int k = 0; k < K; ++k) A[size_t(m * K + k)] = element_value(read(operand_address(da, trans_a, ea, m, k), ea), at);
  } else {
    A = p.a;
  }
  const Descriptor db = decode_descriptor(p.desc_b, "B");
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) B[size_t(n * K + k)] = element_value(read(operand_address(db, trans_b, eb, n, k), eb), bt);

  // D = A*B (+ D): the K products of an element are exact in double and summed in double in
  // order of k; the old D (when scale-d) is added in double and the result rounded once to the
  // accumulator type (to nearest even).
  const NumberFormat& fd = dt == Type::F32 ? kF32 : kF16;
  const double sign = static_cast<double>(scale_a * scale_b);
  // PTX ISA §9.7.15.5.2, accumulator D of .m64nNk*: element i of thread t is row
  // 16*(t/32) + (t%32)/4 + 8*((i/2)%2), column 2*(t%4) + i%2 + 8*(i/4); f32: register i; f16:
  // register i/2, element i%2 in the low (0) or high (1) half.
  for (uint32_t u = 0; u < 128; ++u) {
    uint64_t* R = regs(first + u);
    for (int i = 0; i < N / 2; ++i) {
      const int row = 16 * int(u / 32) + int(u % 32) / 4 + 8 * ((i / 2) % 2);
      const int col = 2 * int(u % 4) + i % 2 + 8 * (i / 4);
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += A[size_t(row * K + k)] * B[size_t(col * K + k)];
      sum *= sign;
      const int32_t slot = list.acc[size_t(dt == Type::F32 ? i : i / 2)];
      const int shift = dt == Type::F32 ? 0 : 16 * (i % 2);
      const uint64_t mask = dt == Type::F32 ? 0xffffffffu : 0xffffu;
      if (scale_d) sum += codegen::decode(fd, (R[slot] >> shift) & mask);
      const uint64_t bits = codegen::encode(fd, sum);
      R[slot] = (R[slot] & ~(mask << shift)) | (bits << shift);
    }
  }
}


}  // namespace tessel::emu::detail

namespace tessel::emu::detail {

// Every thread of the warpgroup executes commit_group and wait_group (.sync.aligned); the first to
// commit its k-th group creates it, and a thread's wait for N pending performs the warpgroup's
// groups up to its own k-th minus N. A wgmma's collective completes only when all 128 threads
// reach it, so no thread issues into a group another thread has not yet committed.
void BlockRunner::wgmma_commit(uint32_t t) {
  WgmmaGroups& g = wgmma_[t / 128];
  if (++wgmma_commits_[t] <= g.created) return;
  g.committed.push_back(std::move(g.open));
  g.open.clear();
  ++g.created;
}

void BlockRunner::wgmma_wait(uint32_t t, uint64_t pending) {
  WgmmaGroups& g = wgmma_[t / 128];
  const uint64_t mine = wgmma_commits_[t];
  while (g.done + pending < mine && !g.committed.empty()) {
    for (const PendingWgmma& p : g.committed.front()) perform_wgmma(p);
    g.committed.pop_front();
    ++g.done;
  }
}

}  // namespace tessel::emu::detail
