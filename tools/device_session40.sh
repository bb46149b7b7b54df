#!/usr/bin/env bash
# device_session40.sh PART: where the time of issue 18's rows 20 and 28 goes.
# PART 1: row 28 (a C of its own whose rows the TMA cannot read, copied into the workspace by a
# launch before the GEMM), the same problem with C = out (row 20) and 4096x3001x4096 with C's rows
# odd: the one call's time (tessel bench, beside cuBLAS), then every kernel's duration under ncu
# (gpu__time_duration: the copy, the GEMM, cuBLAS's kernels, each serialized, base clocks).
# PART 2: the pitched copies a GEMM's packing makes (tessel_elementwise_bench --pitched), then row
# 20's kernels under ncu at the clocks the GPU chooses (--clock-control none).
# PART 3: after the elementwise change (vectors per thread by the vector's width): the GPU tests of
# elementwise, the catalog and tessel::gemm's copies, the pitched copies, the elementwise add
# table, issue 18's rows 16-33 through the one call. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
kernel_times() {  # kernel_times NCU_ARGS... -- BENCH_ARGS...: each kernel's name and duration (ns)
  timeout 150 ncu --metrics gpu__time_duration.sum --csv "$@" 2> "$OUT/ncu_err.txt" | grep gpu__time_duration |
    awk -F'","' '{print $5 " | " $NF}' | sed 's/"//g' | sort | uniq -c | awk '{$1=$1};1' | sort -k2,2 -u
}
if [ "${1:-1}" = 4 ]; then
  :
elif [ "${1:-1}" = 1 ]; then
  device_build tessel
  problems=("$row20 --c-major n" "$row20" "--m 4096 --n 3001 --k 4096 --out-major m --c-major n --beta 1")
  for p in "${problems[@]}"; do
    echo "== $p"
    timeout 60 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 40 2>&1 | grep -vE "^\s*$" | tail -6
    kernel_times $B/tessel bench gemm $p --one-call --iters 2 --warmup 1 --seed 40
  done 2>&1 | tee "$OUT/row28.txt"
elif [ "$1" = 3 ]; then
  device_build tessel tessel_tests tessel_elementwise_bench
  timeout 300 ctest --test-dir build/device -R "gpu elementwise|catalog: gpu|gemm: gpu|cli: run" -j4 --output-on-failure \
    > "$OUT/gpu_tests.log" 2>&1
  echo "ctest: rc=$?"; grep -E "tests passed|tests failed|Failed|\*\*\*|Timeout" "$OUT/gpu_tests.log" | head -20
  timeout 200 $B/tessel_elementwise_bench --pitched 2>&1 | tee "$OUT/pitched.txt"
  timeout 200 $B/tessel_elementwise_bench 2>&1 | tee "$OUT/add.txt"
  echo "== row 28 and its kin"
  for p in "$row20 --c-major n" "--m 4096 --n 3001 --k 4096 --out-major m --c-major n --beta 1" \
           "--m 1000 --n 3000 --k 777" "--m 4096 --n 3002 --k 4096 --out-major m --c-major n --beta 1"; do
    timeout 60 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 40 2>&1 | grep -E "^[0-9]" 
  done 2>&1 | tee "$OUT/copies.txt"
  timeout 240 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 40 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
else
  device_build tessel tessel_elementwise_bench
  timeout 200 $B/tessel_elementwise_bench --pitched 2>&1 | tee "$OUT/pitched.txt"
  echo "== row 20 under ncu, --clock-control none"
  for i in 1 2 3; do
    timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv $B/tessel bench gemm $row20 --one-call \
      --iters 2 --warmup 1 --seed 40 2> "$OUT/ncu_err.txt" | grep gpu__time_duration | awk -F'","' '{print $5 " | " $NF}' |
      sed 's/"//g' | sort | uniq -c
  done 2>&1 | tee "$OUT/row20_ncu.txt"
fi
# PART 4 (bash tools/device_session40.sh 4): row 20's kernel beside cuBLAS's under ncu, the
# sections SpeedOfLight, MemoryWorkloadAnalysis, WarpStateStats, LaunchStats, Occupancy (one
# launch of each after two, at the GPU's own clocks); the details into $OUT/row20_ncu_full.txt.
if [ "${1:-1}" = 4 ]; then
  command -v ncu > /dev/null || { echo "no ncu"; exit 1; }
  device_build tessel
  S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy"
  for k in "tessel_hopper_gemm" "nvjet"; do
    timeout 200 ncu --clock-control none -k "regex:$k" --launch-skip 2 --launch-count 1 $S -o "$OUT/row20_$k" \
      $B/tessel bench gemm $row20 --one-call --iters 3 --warmup 2 --seed 40 > /dev/null 2>&1
    ncu --import "$OUT/row20_$k.ncu-rep" --page details 2>&1 | grep -vE "^\s*$" | grep -v -- '----'
  done > "$OUT/row20_ncu_full.txt" 2>&1
  grep -E "^  [a-z_]|Duration|Elapsed Cycles|SM Active|DRAM Throughput|Memory Throughput|Compute \(SM\)|L2 Hit|Registers|Stall|Warp Cycles Per Issued|Issued Warp|Achieved|Block Size|Grid Size|Cluster|Shared Memory Config" \
    "$OUT/row20_ncu_full.txt" | head -80
fi
