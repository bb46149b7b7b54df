#!/usr/bin/env bash
# device_tiles.sh: ncu of named catalog kernels on named problems (issue 19: why one tile runs
# slower than the cost model rates it on some shapes): SpeedOfLight and MemoryWorkloadAnalysis of
# the second timed launch of `tessel bench gemm --kernel`, the lines that tell compute from L2 and
# DRAM limits ($OUT/ncu.txt keeps all).
#   bash tools/device_tiles.sh "M,N,K,KERNEL-SUFFIX ..."   (suffix after tessel_hopper_gemm_bf16_bf16_)
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
for c in $1; do
  IFS=, read -r m n k kern <<< "$c"
  name=tessel_hopper_gemm_bf16_bf16_$kern
  echo "== ncu: $m x $n x $k, $name"
  timeout 150 ncu -k "regex:$name\$" --launch-skip 2 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section LaunchStats \
    $T bench gemm --m "$m" --n "$n" --k "$k" --a-major k --b-major k --kernel "$name" --iters 2 --warmup 2 2>&1 |
    grep -vE "^==PROF==|^\s*$"
done > "$OUT/ncu.txt" 2>&1
grep -E "^== |Duration|Throughput|Hit Rate|Mem Busy|Max Bandwidth|Grid Size|SM Frequency" "$OUT/ncu.txt"
