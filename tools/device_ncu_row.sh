#!/usr/bin/env bash
# device_ncu_row.sh "BENCH OPTIONS" [...]: ncu (SpeedOfLight, LaunchStats, Occupancy) of every kernel
# one `tessel bench gemm OPTIONS --iters 1 --warmup 1` launches, cuBLAS's among them: what the
# peer runs (its kernel's name, grid and block) and how long each takes on the device, launch
# overhead excluded. Summary lines printed; $OUT/ncu_row.txt keeps all.
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
for p in "$@"; do
  echo "== ncu: tessel bench gemm $p"
  timeout 200 ncu --launch-count 40 --section SpeedOfLight --section LaunchStats --section Occupancy \
    $T bench gemm $p --iters 1 --warmup 1 2>&1 | grep -vE "^==PROF==|^\s*$"
done > "$OUT/ncu_row.txt" 2>&1
grep -E "^== |^  [a-zA-Z_].*\(|Duration|Grid Size|Block Size|Registers Per|Memory Throughput|Compute \(SM\) Throughput|Dynamic Shared" "$OUT/ncu_row.txt"
