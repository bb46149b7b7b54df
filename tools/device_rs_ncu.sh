#!/usr/bin/env bash
# device_rs_ncu.sh: why tf32 with A through registers (_mkr) runs slower than the shared-memory
# kernel (_kkr) of the same tile, and what cuBLAS runs on the same problem: the SASS of both
# kernels' main loops, their times side by side, ncu (full set) of each and of cuBLAS's kernel,
# and ncu's per-instruction stall samples of the register-path kernel. Logs under $OUT.
#   bash tools/device_rs_ncu.sh [TILE]   (default 128x256x32_s4)
source "$(dirname "$0")/device_common.sh"
device_build tessel
T=build/device/bin/tessel
tile=${1:-128x256x32_s4}
for v in mkr kkr; do
  k=tessel_hopper_gemm_f32_f32_${tile}_$v
  $T dump "$k" > "$OUT/$v.ptx" && ptxas -arch=sm_90a -v "$OUT/$v.ptx" -o "$OUT/$v.cubin" 2>&1 | tail -2
  cuobjdump -sass "$OUT/$v.cubin" > "$OUT/$v.sass"; rm -f "$OUT/$v.cubin"
  echo "$v: $(grep -c GMMA "$OUT/$v.sass") GMMA, $(grep -c 'LDS' "$OUT/$v.sass") LDS, $(grep -c 'WARPGROUP' "$OUT/$v.sass") WARPGROUP"
done
for v in mkr kkr; do
  timeout 60 $T bench gemm --kernel tessel_hopper_gemm_f32_f32_${tile}_$v --m 4096 --n 4096 --k 4096 \
    --iters 20 --warmup 5 --seed 7 2>&1 | grep -E "^[0-9]|^ +no |error|cuBLAS|tessel"
done | tee "$OUT/times.txt"
for v in mkr kkr; do
  timeout 200 ncu --set full --import-source no -k "regex:${v}|gemm|nvjet" --launch-skip 2 --launch-count 2 \
    -o "$OUT/$v" $T bench gemm --kernel tessel_hopper_gemm_f32_f32_${tile}_$v --m 4096 --n 4096 --k 4096 \
    --iters 2 --warmup 1 --seed 7 > "$OUT/ncu_$v.log" 2>&1
  ncu -i "$OUT/$v.ncu-rep" --page details > "$OUT/details_$v.txt" 2>&1
  ncu -i "$OUT/$v.ncu-rep" --page source --csv --print-source sass -k "regex:_$v" > "$OUT/source_$v.csv" 2>&1
  ncu -i "$OUT/$v.ncu-rep" --page raw --csv --metrics smsp__pcsamp_warps_issue_stalled_barrier,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_shared_ld.sum,gpu__time_duration.sum > "$OUT/raw_$v.csv" 2>&1
  rm -f "$OUT/$v.ncu-rep"
done
grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Compute \(SM\) Throughput|Memory Throughput|Block Size|Grid Size|Cluster Size|Dynamic Shared|Stall|Bank" "$OUT"/details_*.txt | cut -c1-200 | head -80
