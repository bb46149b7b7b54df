#!/usr/bin/env bash
# device_gemm.sh: the GEMM benchmark alone on the device machine (tools/device.sh runs everything):
# builds Release, runs the cuBLAS-peer and bench GPU tests, then `tessel bench gemm --sweep` of
# the Hopper GEMM against cuBLAS. Logs under $OUT. Same preamble as tools/device.sh.
set -uo pipefail
OUT="${OUT:-$PWD/device-out}"
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1
  echo "commit: ${TESSEL_COMMIT:-unknown}"
} > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
  cmake --build build/device -j"$(nproc)" >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
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
