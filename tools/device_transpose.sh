#!/usr/bin/env bash
# device_transpose.sh: the staged elementwise copy (an input of another major than C's read
# through shared memory) on the GPU: its GPU tests, the transposing-copy bandwidth table (staged,
# unstaged, a device-to-device copy; power-of-two rows and a GEMM's 2000 x 1500 bf16 C, 4096^2
# s8, 1000 x 3000 and 4095 x 4097 f32, 7 x 333 x 555 f16), the GEMM rows that copy an operand
# into another major (one call against cuBLAS), ncu's duration of the copy kernel on the 4096^3
# tf32 row, and ncu of the staged copy alone on bf16 2000 x 1500 and s8 4096^2 (duration, DRAM
# throughput, registers, achieved occupancy). Logs under $OUT: tests.txt, transpose.txt,
# rows.txt, ncu.txt, ncu_copy.txt.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel tessel_tests tessel_elementwise_bench
B=build/device/bin
timeout 180 build/device/tests/tessel_tests -tc="*gpu elementwise*,*gpu tessel::gemm runs what*,*gpu repeated tessel::gemm*" \
  > "$OUT/tests.txt" 2>&1
echo "tests: rc=$?"
tail -4 "$OUT/tests.txt"
timeout 150 $B/tessel_elementwise_bench --transpose --reps 20 2>&1 | tee "$OUT/transpose.txt"
rows=(
  "--m 4096 --n 4096 --k 4096 --dtype f32 --a-major m --b-major k"
  "--m 3000 --n 3000 --k 3000 --dtype f32 --a-major k --b-major n"
  "--m 8192 --n 8192 --k 2048 --dtype f32 --a-major m --b-major n"
  "--m 2048 --n 6144 --k 1536 --dtype f32 --a-major m --b-major k"
  "--m 2000 --n 1500 --k 1000 --a-major k --b-major n --out-major m --alpha 0.5 --beta 2"
  "--l 7 --m 333 --n 555 --k 777 --dtype f16 --out f32 --a-major k --b-major n"
)
[ -n "${ROWS:-}" ] && rows=("${rows[@]:0:$ROWS}")  # ROWS=N: the first N rows only
for p in "${rows[@]}"; do
  timeout 60 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 7 2>&1 | grep -vE "^(method|cuBLAS|seed):|^$"
done 2>&1 | tee "$OUT/rows.txt"
timeout 60 ncu --kernel-name regex:elementwise_copy --launch-count 2 --section SpeedOfLight \
  $B/tessel bench gemm ${rows[0]} --one-call --iters 1 --warmup 1 > "$OUT/ncu.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput" "$OUT/ncu.txt"
for row in bf16:2000x1500 s8:4096x4096; do
  timeout 90 ncu --kernel-name regex:'elementwise_copy.*_t[us]u_' --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy \
    $B/tessel_elementwise_bench --transpose --only "$row" --reps 1 2>&1
done > "$OUT/ncu_copy.txt"
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Registers Per Thread|Achieved Occupancy|Grid Size" "$OUT/ncu_copy.txt"
