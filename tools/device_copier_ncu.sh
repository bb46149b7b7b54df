#!/usr/bin/env bash
# device_copier_ncu.sh: issue 18 row 28's kernel under ncu (per-instruction stall samples, and its
# duration) with C as the row gives it (the copier warps) and with C's rows padded (the TMA).
# CSVs packed in $OUT/copier.tgz.
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
k=tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc_c1x2
P="--m 2000 --n 1500 --k 1000 --out-major m --c-major n --alpha 0.5 --beta 2"
mkdir -p /tmp/cp
for pad in "" --pad-ld; do
  name=copier${pad:+_padded}
  timeout 200 ncu --section WarpStateStats --section SourceCounters --section SpeedOfLight --import-source no \
    -k "regex:${k}\$" --launch-skip 2 --launch-count 1 -o /tmp/cp/$name $T bench gemm --kernel $k $P $pad \
    --iters 2 --warmup 1 --seed 7 > /tmp/cp/$name.log 2>&1
  ncu -i /tmp/cp/$name.ncu-rep --page source --csv --print-source sass > /tmp/cp/$name.csv 2>&1
  ncu -i /tmp/cp/$name.ncu-rep --page details > /tmp/cp/$name.details.txt 2>&1
  rm -f /tmp/cp/$name.ncu-rep
  echo "$name: $(grep -E "^ +Duration" /tmp/cp/$name.details.txt)"
done
tar czf "$OUT/copier.tgz" -C /tmp/cp .
