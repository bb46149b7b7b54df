#!/usr/bin/env bash
# device_relaxed.sh: clustered picks through the one call (issue 18 row 20 and others), twice.
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
for r in 1 2; do
  timeout 60 $T bench gemm --sweep --rows 20-20 --one-call --iters 20 --warmup 5 --seed $r 2>&1 | grep -E "^[0-9]"
  timeout 60 $T bench gemm --m 3000 --n 5000 --k 1500 --dtype bf16 --one-call --iters 20 --warmup 5 --seed $r 2>&1 | grep -E "^[0-9]"
  timeout 60 $T bench gemm --m 3000 --n 2000 --k 1000 --dtype bf16 --out-major m --beta 1 --one-call --iters 20 --warmup 5 --seed $r 2>&1 | grep -E "^[0-9]"
  timeout 60 $T bench gemm --m 128256 --n 8192 --k 1 --a-major m --b-major n --kernel tessel_hopper_gemm_bf16_bf16_128x256x64_s4_mnr_c1x2 --iters 20 --warmup 5 --seed $r 2>&1 | grep -E "^[0-9]"
done 2>&1 | tee "$OUT/relaxed.txt"
