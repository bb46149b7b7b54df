#!/usr/bin/env bash
# device_hostpath42.sh: the one call's host time per call on the device machine's CPU
# (tessel_host_bench: the same pointers every call, and alternating between two sets, with the
# device time of the same calls back to back), beside issue 18's rows 20 and 28 through the one
# call against cuBLAS (three processes each). Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
device_build tessel tessel_host_bench
timeout 120 $B/tessel_host_bench --quick 2>&1 | tee "$OUT/host_bench.txt"
for p in "$row20" "$row20 --c-major n"; do
  for r in 1 2 3; do timeout 40 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 42 2>&1 | grep -E "^\s*[0-9]|rror"; done
done 2>&1 | tee "$OUT/rows.txt"
