#!/usr/bin/env bash
# device_row20_stalls.sh: where the warps of issue 18 row 20's kernel wait, against cuBLAS's
# (ncu WarpStateStats, SchedulerStats and the L2/DRAM throughputs of one launch each). Logs under $OUT.
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
P="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
k=tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc_c1x2
for re in "$k\$" nvjet; do
  timeout 200 ncu -k "regex:$re" --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section Occupancy \
    --metrics "lts__t_sectors_srcunit_tex.sum,dram__bytes_read.sum,sm__cycles_active.avg,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio" \
    $T bench gemm $P --kernel $k --iters 3 --warmup 3 >> "$OUT/ncu_row20.txt" 2>&1
done
grep -E "^  [a-zA-Z_].*\(|Duration|Throughput|Stall|stall|Warp Cycles|Issued|Eligible|Active Warps|lts__t|dram__|cycles_active|stalled|Registers|Shared Memory" "$OUT/ncu_row20.txt" | grep -v "^ *----" | head -120
