#!/usr/bin/env bash
# device_prefetch.sh (experiment): the beta rows with and without C's L2 prefetch (TESSEL_EXP_NOPF).
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
export TESSEL_CACHE_DIR=/tmp/tcache
for r in 1 2; do
  for pf in 0 1; do
    echo "== no prefetch: $pf"
    if [ $pf = 1 ]; then export TESSEL_EXP_NOPF=1; else unset TESSEL_EXP_NOPF; fi
    timeout 60 $T bench gemm --sweep --rows 20-20 --one-call --iters 20 --warmup 5 --seed 3 2>&1 | grep -E "^[0-9]"
    timeout 60 $T bench gemm --sweep --rows 29-31 --one-call --iters 20 --warmup 5 --seed 3 2>&1 | grep -E "^[0-9]"
    timeout 60 $T bench gemm --m 6000 --n 2000 --k 1000 --beta 1 --one-call --iters 20 --warmup 5 --seed 3 2>&1 | grep -E "^[0-9]"
    timeout 60 $T bench gemm --m 8192 --n 8192 --k 1024 --beta 1 --one-call --iters 20 --warmup 5 --seed 3 2>&1 | grep -E "^[0-9]"
  done
done 2>&1 | tee "$OUT/prefetch.txt"
