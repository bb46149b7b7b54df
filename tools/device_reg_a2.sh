#!/usr/bin/env bash
# device_reg_a2.sh: the tf32 register path with two register sets (k-tiles in pairs): `tessel run`
# of four of its kernels on the GPU (random ragged problems against the f64 host reference), then
# the 128x256 kernels through registers (mkr) and K-major (kkr) by name on the same problems with A
# M-major and K-major, against cuBLAS. Logs under $OUT: run.txt, rows.txt.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
for k in 128x256x32_s4_mkr 128x128x32_s6_mkr_sk 128x192x32_s4_knc 64x128x32_s7_mkr_pp; do
  timeout 30 $T run tessel_hopper_gemm_f32_f32_$k 2>&1 | tail -2
done 2>&1 | tee "$OUT/run.txt"
for p in "--m 4096 --n 4096 --k 4096" "--m 2048 --n 6144 --k 1536"; do
  for v in "m mkr" "k kkr"; do
    set -- $v
    timeout 30 $T bench gemm $p --dtype f32 --a-major $1 --b-major k --kernel tessel_hopper_gemm_f32_f32_128x256x32_s4_$2 \
      --iters 20 --warmup 5 --seed 7 2>&1 | grep -E "^[0-9]|error"
  done
done 2>&1 | tee "$OUT/rows.txt"
