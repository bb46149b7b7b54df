#!/usr/bin/env bash
# device_row20_ncu.sh: ncu of the 128x192 kernels (cluster 1x2, 2x1, none) and cuBLAS on issue 18 row 20
# (2000x1500x1000 bf16, out M-major, alpha 0.5, beta 2): L2 traffic and durations.
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
P="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
for s in kkc_c1x2 kkc_c2x1 kkc; do
  k=tessel_hopper_gemm_bf16_bf16_128x192x64_s4_$s
  echo "== $k"
  timeout 120 ncu -k "regex:$k\$|nvjet" --launch-skip 2 --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --metrics lts__t_sectors_srcunit_tex.sum,lts__t_requests_srcunit_tex.sum,sm__cycles_active.avg \
    $T bench gemm $P --kernel $k --iters 2 --warmup 2 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration|Throughput|Hit Rate|Mem Busy|Max Bandwidth|lts__t|Cluster Size|sm__cycles"
done
