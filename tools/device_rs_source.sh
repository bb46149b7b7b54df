#!/usr/bin/env bash
# device_rs_source.sh KERNEL...: ncu's per-instruction SASS view (stall samples by reason, executed
# counts) of each named kernel on 4096^3 (or PROBLEM="--m .. --n .. --k .." as `tessel bench gemm`
# takes it), one launch after warm-up; CSVs packed in $OUT/source.tgz (the device returns few files).
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
mkdir -p /tmp/src
for k in "$@"; do
  timeout 200 ncu --section WarpStateStats --section SourceCounters --import-source no -k "regex:${k}\$" \
    --launch-skip 2 --launch-count 1 -o /tmp/src/$k $T bench gemm --kernel "$k" ${PROBLEM:---m 4096 --n 4096 --k 4096} \
    --iters 2 --warmup 1 --seed 7 > /tmp/src/$k.log 2>&1
  ncu -i /tmp/src/$k.ncu-rep --page source --csv --print-source sass > /tmp/src/$k.csv 2>&1
  ncu -i /tmp/src/$k.ncu-rep --page details > /tmp/src/$k.details.txt 2>&1
  rm -f /tmp/src/$k.ncu-rep
  echo "$k: $(wc -l < /tmp/src/$k.csv) lines"
done
tar czf "$OUT/source.tgz" -C /tmp/src .
