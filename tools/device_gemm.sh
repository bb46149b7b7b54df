#!/usr/bin/env bash
# device_gemm.sh: the GEMM benchmark alone on the device machine (tools/device.sh runs everything):
# builds Release, runs the cuBLAS-peer and bench GPU tests, then `tessel bench gemm --sweep` of
# the Hopper GEMM against cuBLAS. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build
build/device/tests/tessel_tests -tc="${TESTS:-*cublas*gpu*,*bench*gpu*}" > "$OUT/bench_tests.log" 2>&1
grep -E "ERROR|test cases" "$OUT/bench_tests.log" | head -20
# CTEST=REGEX: also those tests, in parallel (the GPU GEMM tests take minutes one after another).
if [ -n "${CTEST:-}" ]; then
  (cd build/device && ctest -j12 --output-on-failure --timeout 500 -R "$CTEST") > "$OUT/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Failed|ERROR" "$OUT/ctest.log" | head -20
fi
# SWEEP=0: no sweep (the caller benchmarks what it wants with build/device/bin/tessel).
if [ "${SWEEP:-1}" != 0 ]; then
  build/device/bin/tessel bench gemm --sweep --class hopper_gemm "$@" 2>&1 | tee "$OUT/gemm_bench.txt"
fi
