// simt_gemm_test.cpp: the catalog's SIMT GEMM (the portable path) on the CPU emulator against the
// double-precision host reference: a C of its own in either major whatever out's, beta == 0 with
// C all NaN (never read), C given as out's own view, and a batch stride of 0 (broadcast) for A, B
// or C; ragged M, N and K, L > 1.
#include <doctest/doctest.h>

#include "algebra/support.hpp"
#include "kernels/gemm_problem.hpp"
#include "tessel/emulator.hpp"
#include "tessel/kernels/simt_gemm.hpp"

using namespace tessel;
using namespace tessel::kernels;
using codegen::Type;

namespace {

SimtGemmConfig config(Type t, Major a, Major b, Major out) {
  SimtGemmConfig c;
  c.dtype = t;
  c.a_major = a;
  c.b_major = b;
  c.out_major = out;
  c.tile_m = 32;
  c.tile_n = 32;
  c.thread_m = 2;
  c.thread_n = 2;
  return c;
}

// One random problem of `o` on the emulator: out against the host, C's bytes unchanged.
void check_emulated(const SimtGemmConfig& c, std::mt19937_64& rng, const GemmProblemOptions& o) {
  test::GemmProblem p = test::make_gemm_problem(simt_gemm_metadata(c), rng, o);
  INFO(c.name() << ": " << p.describe());
  emu::Memory mem;
  const uint64_t a = mem.upload(p.A.bytes), b = mem.upload(p.B.bytes), out = mem.upload(p.out.bytes);
  const uint64_t cc = p.C ? mem.upload(p.C->bytes) : 0;
  const GemmArguments args = p.arguments(a, b, out, cc);
  const Status s = simt_gemm_supports(c, args);
  INFO(s.reason);
  REQUIRE(s.ok);
  emu::run(simt_gemm_plan(c, args, simt_gemm(c)), mem);
  CHECK(test::check_gemm(p, mem.read<uint8_t>(out, p.out.bytes.size())) == "");
  if (p.C) CHECK(mem.read<uint8_t>(cc, p.C->bytes.size()) == p.C->bytes);
}

}  // namespace

TEST_CASE("emulator: the SIMT GEMM adds a C of its own in either major, and never reads it when beta is 0") {
  TESSEL_RNG(rng);
  for (const SimtGemmConfig& c : {config(Type::F32, Major::Row, Major::Row, Major::Row),
                                  config(Type::BF16, Major::Column, Major::Row, Major::Column),
                                  config(Type::F64, Major::Any, Major::Column, Major::Any)}) {
    for (Major cm : {Major::Row, Major::Column, Major::Any}) {
      for (bool beta_zero : {false, true}) {
        GemmProblemOptions o;
        o.max_k = 20;
        o.c_major = cm;
        o.beta_zero = beta_zero;
        const std::string what = std::string("C ") + major_name(cm) + ", beta " + (beta_zero ? "0" : "!= 0");
        INFO(what);
        check_emulated(c, rng, o);
      }
    }
  }
}

TEST_CASE("emulator: the SIMT GEMM broadcasts A, B or C over the batch (batch stride 0)") {
  TESSEL_RNG(rng);
  const SimtGemmConfig c = config(Type::F32, Major::Row, Major::Column, Major::Row);
  for (int which = 0; which < 3; ++which) {
    GemmProblemOptions o;
    o.max_k = 20;
    o.broadcast_a = which == 0;
    o.broadcast_b = which == 1;
    o.broadcast_c = which == 2;
    o.c_major = Major::Column;
    o.beta_zero = false;
    const std::string what = std::string("broadcast ") + "ABC"[which];
    INFO(what);
    check_emulated(c, rng, o);
  }
}
