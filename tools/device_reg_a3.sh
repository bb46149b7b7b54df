#!/usr/bin/env bash
# device_reg_a3.sh: tf32 with an M/N-major operand once the register path is compiled as a whole
# program (runtime: setmaxnreg kept): the one call on tf32 rows in and out of the sweep against
# cuBLAS, issue 18's sweep rows, then the GPU tests of the register path, the one call and the
# module/disk caches. Logs under $OUT: rows.txt, sweep.txt, tests.txt.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel tessel_tests
B=build/device/bin
rows=(
  "--m 4096 --n 4096 --k 4096 --dtype f32 --a-major m --b-major k"
  "--m 2048 --n 6144 --k 1536 --dtype f32 --a-major m --b-major k"
  "--m 3000 --n 3000 --k 3000 --dtype f32 --a-major k --b-major n"
  "--m 8192 --n 8192 --k 2048 --dtype f32 --a-major m --b-major n"
  "--m 5120 --n 3072 --k 2560 --dtype f32 --a-major m --b-major k"
  "--m 1536 --n 1536 --k 1536 --dtype f32 --a-major k --b-major n --out-major m"
  "--m 6000 --n 2000 --k 1000 --dtype f32 --a-major m --b-major k --beta 1"
)
for p in "${rows[@]}"; do
  timeout 60 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 11 2>&1 | grep -E "^[0-9]|^ +no |error"
done 2>&1 | tee "$OUT/rows.txt"
timeout 200 $B/tessel bench gemm --sweep --rows 16-23 --one-call --iters 20 --warmup 5 --seed 11 2>&1 |
  grep -E "^[0-9]|geometric|error" | tee "$OUT/sweep.txt"
timeout 200 build/device/tests/tessel_tests -tc="*gpu tf32 with an M-major A*,*gpu tessel::gemm*,*disk cache*,*module cache*,*whole program*" \
  > "$OUT/tests.txt" 2>&1
echo "tests: rc=$?"
grep -E "ERROR|test cases|assertions" "$OUT/tests.txt" | cut -c1-400 | head -12
