#!/usr/bin/env bash
# device_sweep18.sh [ROWS]: issue 18's rows of `tessel bench gemm --sweep` through the one call
# (default 16-33: the first rows of the issue and the classes added after: fp8 M/N-major, a C of
# its own, broadcast batches), then the GPU tests of the cuBLAS peer and the bench. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel tessel_tests
B=build/device/bin
timeout 400 $B/tessel bench gemm --sweep --rows "${1:-16-33}" --one-call --iters 20 --warmup 5 --seed 13 2>&1 |
  grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^[0-9]|geometric|error|note|cuBLAS runs"
timeout 150 build/device/tests/tessel_tests -tc="cublas peer gpu*,cli bench gpu*" > "$OUT/tests.txt" 2>&1
echo "tests: rc=$?"
grep -E "ERROR|test cases|assertions" "$OUT/tests.txt" | cut -c1-400 | head -12
