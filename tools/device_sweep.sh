#!/usr/bin/env bash
# device_sweep.sh [ROWS...]: `tessel bench gemm --sweep --one-call` (the one-call API against
# cuBLAS on the standard list, issue 18's classes among them), then each extra problem given (a
# quoted `tessel bench gemm` option string) with every catalog kernel screened (--each). Logs
# under $OUT: sweep.txt, rows.txt.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
timeout 330 $T bench gemm --sweep --one-call --iters 20 --warmup 5 > "$OUT/sweep.txt" 2>&1
tail -45 "$OUT/sweep.txt"
for p in "$@"; do
  echo "== tessel bench gemm $p --each"
  timeout 90 $T bench gemm $p --each --iters 20 --warmup 5 2>&1 | grep -vE "^(device|seed|cuBLAS|method):|^$"
done > "$OUT/rows.txt" 2>&1
cat "$OUT/rows.txt"
