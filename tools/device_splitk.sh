#!/usr/bin/env bash
# device_splitk.sh: issue 19's split-K on the device machine: builds Release (tessel and tessel_tests
# only), runs the split-K GPU tests and the one-call GEMM GPU tests, then `tessel gemm` (the one-call
# choice and its schedule, every element against the f64 host reference) and `tessel bench gemm`
# (tessel::gemm and the fastest catalog kernel against cuBLAS, in one process) on issue 19's rows.
# Logs under $OUT. `tools/device_splitk.sh [build] [tests] [bench]` runs those steps only (each
# fits a 10-minute call; the default is all three; tests and bench build first if needed).
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
STEPS="${*:-build tests bench}"
if [[ " $STEPS " == *" build "* || ! -x build/device/bin/tessel || ! -x build/device/tests/tessel_tests ]]; then
  device_build tessel tessel_tests
fi
T=build/device/bin/tessel
ROWS=("--m 3072 --n 768 --k 12288" "--m 8 --n 4096 --k 4096" "--m 64 --n 4096 --k 4096"
      "--m 8192 --n 8192 --k 1024" "--m 4096 --n 4096 --k 4096")
if [[ " $STEPS " == *" tests "* ]]; then
  timeout 300 build/device/tests/tessel_tests -tc="split-K: gpu*,gemm: gpu*" > "$OUT/tests.log" 2>&1
  grep -E "ERROR|FAILED|test cases|assertions" "$OUT/tests.log" | head -20
  for p in "${ROWS[@]:1:2}"; do  # the others' f64 host reference (every element) takes minutes
    echo "== tessel gemm $p"
    timeout 60 $T gemm $p 2>&1 | grep -E "^(kernel|schedule|ok|FAIL|first call)|error"
  done 2>&1 | tee "$OUT/gemm.txt"
fi
if [[ " $STEPS " == *" bench "* ]]; then
  for p in "${ROWS[@]}"; do
    echo "== tessel bench gemm $p --dtype bf16"
    timeout 110 $T bench gemm $p --dtype bf16 --iters 20 --warmup 5 2>&1 | grep -vE "^(device|seed|cuBLAS|method):|^$"
  done 2>&1 | tee "$OUT/bench.txt"
fi
