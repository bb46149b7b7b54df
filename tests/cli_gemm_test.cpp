// cli_gemm_test.cpp: `tessel gemm`, the one-call API on the command line: --explain without a GPU,
// the odd-K problem run in the emulator on a tensor-core kernel and checked, misuse.
#include <doctest/doctest.h>

#include <string>

#include "cli_support.hpp"

namespace {

using tessel::test::CliRun;
using tessel::test::run_cli;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("cli gemm: --explain ranks, gives the reasons of the refused and the choice, with no GPU") {
  const CliRun r = run_cli({"gemm", "--m", "3000", "--n", "3000", "--k", "3000", "--dtype", "f32", "--explain", "--cc",
                            "90", "--sms", "132"},
                           "", {"TESSEL_LIBCUDA=/nonexistent/libcuda.so.1"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(contains(r.out, "device: sm_90, 132 SMs, 3352 GB/s DRAM\n"));  // an H100 SXM's unless told
  CHECK(contains(r.out, " candidates, best first:\n  tessel_hopper_gemm_f32_f32_"));
  CHECK(contains(r.out, " refused:\n"));
  CHECK(contains(r.out, "\nchoice: tessel_hopper_gemm_f32_f32_"));
  CHECK(contains(r.out, "(through the workspace: B)"));  // tf32 reads B K-major only
  // On an sm_80 device: the CUDA cores.
  const CliRun ampere = run_cli({"gemm", "--m", "64", "--n", "64", "--k", "64", "--explain", "--cc", "80", "--sms", "108"});
  CHECK(contains(ampere.out, "\nchoice: tessel_simt_gemm_bf16_"));
  // An H200's bandwidth, named on the device line (gemm_one_call_test checks what it does to the estimates).
  const CliRun h200 = run_cli({"gemm", "--m", "128256", "--n", "4096", "--k", "16", "--a-major", "m", "--explain",
                               "--cc", "90", "--sms", "132", "--dram-gbs", "4815"});
  CHECK(contains(h200.out, "device: sm_90, 132 SMs, 4815 GB/s DRAM\n"));
}

TEST_CASE("cli gemm: the odd-K problem of issue 18 runs in the emulator on a tensor-core kernel") {
  const CliRun r = run_cli({"gemm", "--m", "1000", "--n", "3000", "--k", "777", "--dtype", "bf16", "--emulate"}, "",
                           {"TESSEL_LIBCUDA=/nonexistent/libcuda.so.1"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(contains(r.out, "kernel: tessel_hopper_gemm_bf16_bf16_"));
  CHECK(contains(r.out, "(through the workspace: A)"));
  CHECK(contains(r.out, "\nok    "));
  CHECK(contains(r.out, "every element matches the host reference"));
}

TEST_CASE("cli gemm: a column-major out with beta, batched f16 -> f32, in the emulator") {
  const CliRun col = run_cli({"gemm", "--m", "130", "--n", "150", "--k", "100", "--out-major", "m", "--alpha", "0.5",
                              "--beta", "2", "--ldc", "131", "--emulate"});
  INFO(col.out << col.err);
  CHECK(col.status == 0);
  CHECK(contains(col.out, "\nok    "));
  const CliRun batched = run_cli({"gemm", "--l", "3", "--m", "33", "--n", "55", "--k", "77", "--dtype", "f16", "--out",
                                  "f32", "--emulate"});
  INFO(batched.out << batched.err);
  CHECK(batched.status == 0);
  CHECK(contains(batched.out, "kernel: tessel_hopper_gemm_f16_f32_"));
}

// The CUTLASS epilogue's forms from the command line: a C of its own (here column-major under a
// row-major out, a broadcast one for the batch), a broadcast A, padded leading dimensions.
TEST_CASE("cli gemm: a C of its own, broadcast operands and padded leading dimensions, in the emulator") {
  const CliRun r = run_cli({"gemm", "--l", "3", "--m", "100", "--n", "72", "--k", "64", "--c-major", "m", "--beta", "1.5",
                            "--broadcast", "c,a", "--pad-ld", "--emulate"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(contains(r.out, "\nok    "));
  CHECK(contains(r.out, "A bf16 (3,100,64):(0,64,1)"));        // broadcast, rows already 128 bytes
  CHECK(contains(r.out, "C bf16 (3,100,72):(0,1,104)"));       // broadcast, M-major, 100 padded to 104
  CHECK(contains(r.out, "out bf16 (3,100,72):(7200,72,1)"));  // 72 elements: 144 bytes, padded already
  const CliRun e = run_cli({"gemm", "--m", "2000", "--n", "1500", "--k", "1000", "--b-major", "k", "--out-major", "m",
                            "--c-major", "n", "--alpha", "0.5", "--beta", "2", "--explain", "--cc", "90", "--sms", "132"});
  INFO(e.out << e.err);
  CHECK(e.status == 0);
  CHECK(contains(e.out, "C bf16 (2000,1500):(1500,1)"));  // issue 18's row 28
  CHECK(contains(e.out, "\nchoice: tessel_hopper_gemm_bf16_bf16_"));
}

TEST_CASE("cli gemm: misuse names the rule") {
  auto refused = [](std::vector<std::string> args, const std::string& message) {
    args.insert(args.begin(), "gemm");
    const CliRun r = run_cli(args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(contains(r.err, message));
  };
  refused({"--m", "8"}, "error: tessel gemm needs --m, --n and --k");
  refused({"--m", "8", "--n", "8", "--k", "8", "--dtype", "f8"}, "--dtype 'f8' is not a type tessel gemm takes");
  refused({"--m", "8", "--n", "8", "--k", "8", "--lda", "4"}, "leading dimension 4 is less than the columns");
  refused({"--m", "8", "--n", "8", "--k", "8", "--cc", "90"}, "--cc and --sms go together");
  refused({"--m", "8", "--n", "8", "--k", "8", "--cc", "90", "--sms", "4"}, "use --explain");
  refused({"--m", "8", "--n", "8", "--k", "8", "--explain", "--dram-gbs", "4815"},
          "--dram-gbs is the bandwidth of the device that --cc and --sms name");
  refused({"--m", "8", "--n", "8", "--k", "8", "--explain", "--cc", "90", "--sms", "4", "--dram-gbs", "0"},
          "--dram-gbs");
  refused({"--m", "8", "--n", "8", "--k", "8", "--a-major", "n"}, "--a-major 'n' is not a major (valid: k or m");
  refused({"--m", "8", "--n", "8", "--k", "8", "--frob"}, "unknown option '--frob'");
  refused({"--m", "8", "--n", "8", "--k", "8", "--c-major", "n"}, "which only a nonzero --beta reads");
  refused({"--m", "8", "--n", "8", "--k", "8", "--c-major", "k", "--beta", "1"}, "--c-major 'k' is not a major");
  refused({"--m", "8", "--n", "8", "--k", "8", "--broadcast", "a"}, "it needs --l 2 or more, got no --l");
  refused({"--m", "8", "--n", "8", "--k", "8", "--l", "2", "--broadcast", "c", "--beta", "1"},
          "--broadcast c needs a C of its own");
  refused({"--m", "8", "--n", "8", "--k", "8", "--l", "2", "--broadcast", "a,a"}, "--broadcast names 'a' twice");
  // Without a GPU and without --emulate: why, and exit 1.
  const CliRun gpu = run_cli({"gemm", "--m", "8", "--n", "8", "--k", "8"}, "", {"TESSEL_LIBCUDA=/nonexistent/libcuda.so.1"});
  CHECK(gpu.status == 1);
  CHECK(contains(gpu.err, "tessel gemm needs a GPU (or --emulate, or --explain with --cc and --sms)"));
}
