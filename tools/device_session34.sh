#!/usr/bin/env bash
# device_session34.sh: the closing measurements of session 34 in one call: GPU tests of the
# elementwise copy, the one call, the tf32 register path and the cuBLAS peer; the transposing-copy
# table; issue 18's sweep rows (16-33) through the one call; the first result from a cold process
# (both caches, tessel's alone, none). Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel tessel_tests tessel_elementwise_bench
B=build/device/bin
timeout 200 build/device/tests/tessel_tests \
  -tc="*gpu elementwise*,*gpu tessel::gemm*,*gpu repeated tessel::gemm*,*gpu tf32 with an M-major A*,cublas peer gpu*,cli bench gpu*,*disk cache*,*module cache*" \
  > "$OUT/tests.txt" 2>&1
echo "tests: rc=$?"
grep -E "ERROR|test cases|assertions" "$OUT/tests.txt" | cut -c1-300 | head -12
timeout 120 $B/tessel_elementwise_bench --transpose --reps 20 2>&1 | tee "$OUT/transpose.txt" | tail -30
timeout 240 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 17 2>&1 |
  grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^[0-9]|geometric|error"
timeout 150 bash tools/first_result_bench.sh $B/tessel 3 2>&1 | tee "$OUT/first.txt" | grep -E "^\||floor"
