#!/usr/bin/env bash
# device_session42.sh: the one call's launches moved to new addresses (gemm/bound.hpp) instead of
# planned again. `ab OLD_TREE`: every GPU test, the host time per call (tessel_host_bench), then the
# one call beside cuBLAS on issue 18's rows 20, 28 and 16 and two short problems, alternating
# between this build and OLD_TREE's (an export of the commit before), three rounds; `sweep`:
# issue 18's rows 16-33 and the Llama 8B rows through the one call. Logs under $OUT.
# (Session 42's first run, of the swapped wide tiles since reverted, was this script's `each` at
# 16ce9bf: every hopper_gemm candidate timed by `--each` on those rows.)
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
case "${1:-ab}" in
ab)
  old="$2"
  device_build tessel tessel_tests tessel_host_bench
  (cd "$old" && cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build_old.log" 2>&1 &&
    cmake --build build/device -j"$(nproc)" --target tessel >> "$OUT/build_old.log" 2>&1) || { tail -20 "$OUT/build_old.log"; exit 1; }
  device_gpu_tests 240
  timeout 120 $B/tessel_host_bench --quick 2>&1 | tee "$OUT/host_bench.txt"
  for round in 1 2 3; do
    for p in "$row20" "$row20 --c-major n" "--m 1000 --n 3000 --k 777" "--m 1024 --n 1024 --k 1024 --b-major k" \
             "--m 512 --n 4096 --k 1024 --b-major k --beta 1"; do
      for t in new old; do
        b=$B/tessel; [ $t = old ] && b="$old/build/device/bin/tessel"
        printf "%s round %s: " $t $round
        timeout 60 $b bench gemm $p --one-call --iters 20 --warmup 5 --seed 42 2>&1 | grep -E "^[0-9]" | tr -s ' '
      done
    done
  done 2>&1 | tee "$OUT/ab.txt" ;;
sweep)
  device_build tessel
  timeout 200 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 42 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
  timeout 300 $B/tessel bench gemm --llama --llama-model 8b --one-call --iters 10 --warmup 3 --seed 42 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/llama8b.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
ceiling)
  # Row 28 (C in lines) beside the same C with padded rows (through the TMA, prefetched: what
  # reading C in lines could reach) and row 20 (C = out), alternating, three rounds.
  device_build tessel
  for round in 1 2 3; do
    for p in "$row20 --c-major n" "$row20 --c-major n --pad-ld" "$row20"; do
      timeout 60 $B/tessel bench gemm $p --one-call --iters 30 --warmup 5 --seed 42 2>&1 | grep -E "^[0-9]" | tr -s ' '
    done
  done 2>&1 | tee "$OUT/ceiling.txt" ;;
esac
