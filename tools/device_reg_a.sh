#!/usr/bin/env bash
# device_reg_a.sh: tf32 with an M-major A through registers (a_from_registers) on the GPU: the one
# call on the rows it now takes against cuBLAS, the same problems with A K-major (the shared-memory
# kernel, no copy) beside them, then its GPU tests. Logs under $OUT: rows.txt, tests.txt.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel tessel_tests
B=build/device/bin
rows=(
  "--m 4096 --n 4096 --k 4096 --dtype f32 --a-major m --b-major k"
  "--m 4096 --n 4096 --k 4096 --dtype f32 --a-major k --b-major k"
  "--m 2048 --n 6144 --k 1536 --dtype f32 --a-major m --b-major k"
  "--m 2048 --n 6144 --k 1536 --dtype f32 --a-major k --b-major k"
  "--m 3000 --n 3000 --k 3000 --dtype f32 --a-major k --b-major n --out-major m"
  "--m 8192 --n 8192 --k 2048 --dtype f32 --a-major m --b-major n"
)
for p in "${rows[@]}"; do
  timeout 45 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 7 2>&1 | grep -E "^[0-9]|^ +no |error"
done 2>&1 | tee "$OUT/rows.txt"
timeout 120 build/device/tests/tessel_tests -tc="*gpu tf32 with an M-major A*,*gpu tessel::gemm runs what*" \
  > "$OUT/tests.txt" 2>&1
echo "tests: rc=$?"
grep -E "ERROR|test cases|assertions" "$OUT/tests.txt" | cut -c1-400 | head -12
