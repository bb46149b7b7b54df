#!/usr/bin/env bash
# device_session36.sh PART: session 36's measurements. PART 1: the GPU tests of a C of its own (the
# copier warps' and the TMA's) and the one call's, then issue 18's rows 20 and 28 twice, problems
# with a C the TMA cannot read that are not in the issue, and the clustered pair of
# 3000x2000x1000 (the ranking's tie rule). PART 2: every GPU test of the suite, then issue 18's
# sweep rows 16-33 through the one call. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
bench() { timeout 120 $B/tessel bench gemm "$@" --iters 20 --warmup 5 --seed 36 2>&1 | grep -E "^ *[0-9]+x" | cut -c1-42,60-; }
if [ "${1:-1}" = 1 ]; then
  device_build tessel tessel_tests
  timeout "${TEST_S:-240}" ctest --test-dir build/device -R "copier|C of its own|one-call|one call" -j8 --output-on-failure \
    > "$OUT/gpu_tests.log" 2>&1
  echo "ctest: rc=$?"
  grep -E "tests passed|tests failed|Failed|\*\*\*|Timeout" "$OUT/gpu_tests.log" | head -20
  for r in 1 2; do
    timeout 150 $B/tessel bench gemm --sweep --rows 20-20 --one-call --iters 20 --warmup 5 --seed 36 2>&1 | grep "tessel::gemm"
    timeout 150 $B/tessel bench gemm --sweep --rows 28-28 --one-call --iters 20 --warmup 5 --seed 36 2>&1 | grep "tessel::gemm"
  done
  # A C the TMA cannot read, not in the issue: rows 4-byte aligned (the copier), odd (copied), padded (the TMA).
  for n in 3002 3001 3008; do
    bench --m 4096 --n $n --k 4096 --a-major k --b-major k --out-major m --c-major n --beta 1 --one-call
  done
  for m in 3002 3008; do
    bench --m $m --n 4096 --k 2048 --dtype f16 --out f32 --a-major k --b-major k --out-major n --c-major m --beta 1 --one-call
  done
  bench --m 1000 --n 1500 --k 2000 --a-major k --b-major k --out-major m --c-major n --beta 1 --one-call
  echo "== 3000x2000x1000, B N-major, out M-major, beta 1: the two clusters of 128x192"
  for k in tessel_hopper_gemm_bf16_bf16_128x192x64_s4_knc_c1x2 tessel_hopper_gemm_bf16_bf16_128x192x64_s4_knc_c2x1; do
    bench --m 3000 --n 2000 --k 1000 --beta 1 --kernel $k
  done
else
  device_build tessel tessel_tests
  device_gpu_tests 300
  timeout 240 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 36 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
fi
