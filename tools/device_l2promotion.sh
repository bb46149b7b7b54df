#!/usr/bin/env bash
# device_l2promotion.sh (experiment): the Hopper GEMM's tensor maps with each L2 promotion
# (TESSEL_EXP_L2P = 0 none, 1 64B, 2 128B, 3 256B) on issue 18 row 20, misaligned and aligned rows.
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
for p in 0 2 3 0 2 3; do
  echo "== promotion $p"
  TESSEL_EXP_L2P=$p timeout 100 $T bench gemm --sweep --rows 1-3 --one-call --iters 20 --warmup 5 --seed 3 2>&1 | grep -E "^[0-9]"
  TESSEL_EXP_L2P=$p timeout 60 $T bench gemm --sweep --rows 20-21 --one-call --iters 20 --warmup 5 --seed 3 2>&1 | grep -E "^[0-9]"
  TESSEL_EXP_L2P=$p timeout 60 $T bench gemm --m 1000 --n 3000 --k 777 --dtype bf16 --one-call --iters 20 --warmup 5 --seed 3 2>&1 | grep -E "^[0-9]"
  TESSEL_EXP_L2P=$p timeout 60 $T bench gemm --m 4096 --n 4096 --k 128 --a-major m --b-major n --one-call --iters 20 --warmup 5 --seed 3 2>&1 | grep -E "^[0-9]"
done 2>&1 | tee "$OUT/l2p.txt"
