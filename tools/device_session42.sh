#!/usr/bin/env bash
# device_session42.sh: the swapped wide tiles (128 x 192 and 128 x 256 laid the other way over
# out, clustered too). `each`: every GPU test, then every hopper_gemm candidate timed (--each) and
# the one call beside cuBLAS on issue 18's rows 20 and 28 and column-major and row-major kin;
# `sweep`: issue 18's rows 16-33 and the Llama 8B rows through the one call. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
problems=("$row20" "$row20 --c-major n" "--m 3000 --n 5000 --k 2000 --a-major k --b-major k --out-major m --beta 1"
          "--m 3000 --n 2000 --k 1000 --a-major k --b-major n --out-major m --beta 1"
          "--m 4096 --n 4096 --k 4096 --a-major k --b-major k --out-major m --beta 1"
          "--m 1500 --n 2000 --k 1000 --a-major k --b-major k --alpha 0.5 --beta 2")
device_build tessel tessel_tests
case "${1:-each}" in
each)
  device_gpu_tests
  for p in "${problems[@]}"; do
    echo "== $p"
    timeout 90 $B/tessel bench gemm $p --class hopper_gemm --each --seed 42 > "$OUT/each.txt" 2>&1
    grep -E " ms  " "$OUT/each.txt" | sed 's/^[^0-9]*//' | sort -n | head -10
    grep -E "one-call choice|^\s*[0-9]" "$OUT/each.txt"
    for r in 1 2; do timeout 40 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 42 2>&1 | grep -E "^\s*[0-9]|rror"; done
  done 2>&1 | tee "$OUT/each_all.txt" ;;
sweep)
  timeout 200 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 42 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
  timeout 300 $B/tessel bench gemm --llama --llama-model 8b --one-call --iters 10 --warmup 3 --seed 42 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/llama8b.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
esac
