#!/usr/bin/env bash
# device_session37.sh PART: session 37's measurements. PART 1: the GPU tests of a C of its own and
# the one call's, then issue 18's rows 20 and 28 twice, problems with an unaligned C that are not in
# the issue beside their padded twins, and the beta = 1 rows (written for the interleaved
# sub-tensors of 1bf2708, reverted: hopper_gemm.md "Not yet"). PART 2: every GPU test of the
# suite, then issue 18's sweep rows 16-33 through the one call. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
bench() { timeout 120 $B/tessel bench gemm "$@" --iters 20 --warmup 5 --seed 37 2>&1 | grep -E "^ *[0-9]+x" | cut -c1-42,60-; }
if [ "${1:-1}" = 1 ]; then
  device_build tessel tessel_tests
  timeout "${TEST_S:-240}" ctest --test-dir build/device -R "C of its own|one-call|one call" -j8 \
    --output-on-failure > "$OUT/gpu_tests.log" 2>&1
  echo "ctest: rc=$?"
  grep -E "tests passed|tests failed|Failed|\*\*\*|Timeout" "$OUT/gpu_tests.log" | head -20
  for r in 1 2; do
    timeout 150 $B/tessel bench gemm --sweep --rows 20-20 --one-call --iters 20 --warmup 5 --seed 37 2>&1 | grep "tessel::gemm"
    timeout 150 $B/tessel bench gemm --sweep --rows 28-28 --one-call --iters 20 --warmup 5 --seed 37 2>&1 | grep "tessel::gemm"
  done
  echo "== an unaligned C not in the issue, beside its padded twin"
  for n in 3001 3002 3008; do
    bench --m 4096 --n $n --k 4096 --a-major k --b-major k --out-major m --c-major n --beta 1 --one-call
  done
  for m in 3001 3008; do
    bench --m $m --n 4096 --k 2048 --dtype f16 --out f32 --a-major k --b-major k --out-major n --c-major m --beta 1 --one-call
  done
  bench --m 1000 --n 1500 --k 2000 --a-major k --b-major k --out-major m --c-major n --beta 1 --one-call
  bench --m 777 --n 5000 --k 1536 --a-major k --b-major n --out-major n --c-major n --beta 0.5 --one-call
  echo "== aligned C, beta 1 (sweep rows 29, 30, 33)"
  timeout 200 $B/tessel bench gemm --sweep --rows 29-33 --one-call --iters 20 --warmup 5 --seed 37 2>&1 | grep "tessel::gemm"
else
  device_build tessel tessel_tests
  device_gpu_tests 330
  timeout 240 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 37 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
fi
