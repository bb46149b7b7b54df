#!/usr/bin/env bash
# device_decode.sh: the decode-sized GEMMs of a Llama-class model (weights as stored: B K-major)
# on the device machine (issue 19, item 2). With --tests first the GPU tests of the swapped kernels
# and of split-K on M = 8..64 ($OUT/tests.log). Every catalog Hopper kernel and every split-K
# kernel at each count of --splits timed against cuBLAS in one process, then tessel::gemm's own
# choice ($OUT/bench.txt); then ncu of cuBLAS's kernels and of tessel's on two of them
# ($OUT/ncu.txt): which kernel, grid and DRAM throughput each reaches.
#   bash tools/device_decode.sh [--tests] [--no-ncu] [--splits LIST] [--problems "M,N,K ..."]
source "$(dirname "$0")/device_common.sh"
NCU=1 TESTS=0 SPLITS=2,3,4,6,8
PROBLEMS="1,4096,14336 16,4096,14336 1,4096,4096 16,4096,4096 1,6144,4096 1,28672,4096 1,8192,28672 1,10240,8192"
while [ $# -gt 0 ]; do
  case "$1" in
    --tests) TESTS=1 ;;
    --no-ncu) NCU=0 ;;
    --splits) SPLITS="$2"; shift ;;
    --problems) PROBLEMS="$2"; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
  shift
done
start=$(date +%s)
if [ "$TESTS" = 1 ]; then
  device_build tessel tessel_tests
  timeout 240 build/device/tests/tessel_tests -tc="swap: gpu*,split-K: gpu M = 8..64*" > "$OUT/tests.log" 2>&1
  grep -E "ERROR|FAILED|test cases|assertions" "$OUT/tests.log" | head -20
  echo "tests: $(($(date +%s) - start)) s"
else
  device_build tessel
fi
T=build/device/bin/tessel
for p in $PROBLEMS; do
  IFS=, read -r m n k <<< "$p"
  echo "== tessel bench gemm --m $m --n $n --k $k --a-major k --b-major k --class hopper_gemm --splits $SPLITS"
  timeout 200 $T bench gemm --m "$m" --n "$n" --k "$k" --a-major k --b-major k --class hopper_gemm \
    --splits "$SPLITS" --each --iters 10 --warmup 3 2>&1
  echo "== tessel bench gemm --m $m --n $n --k $k --a-major k --b-major k --one-call"
  timeout 100 $T bench gemm --m "$m" --n "$n" --k "$k" --a-major k --b-major k --one-call --iters 10 --warmup 3 2>&1
done > "$OUT/bench.txt"
grep -E "^== |^[0-9]+x|fastest|split-K x|cuBLAS" "$OUT/bench.txt" | head -200
echo "bench: $(($(date +%s) - start)) s"
if [ "$NCU" = 1 ] && command -v ncu > /dev/null; then
  M="--section SpeedOfLight --section LaunchStats --section Occupancy"
  for p in 1,4096,14336 16,4096,4096; do
    IFS=, read -r m n k <<< "$p"
    echo "== ncu: cuBLAS and tessel::gemm on $m x $n x $k (--one-call: tessel's choice, then cuBLAS)"
    timeout 200 ncu --launch-skip 4 --launch-count 4 $M \
      $T bench gemm --m "$m" --n "$n" --k "$k" --a-major k --b-major k --one-call --iters 2 --warmup 2 2>&1 |
      grep -vE "^==PROF==|^\s*$" | grep -v -- '----'
  done > "$OUT/ncu.txt" 2>&1
  grep -E "^== |^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Grid Size|Block Size|Registers|Achieved Occ|Memory Throughput" "$OUT/ncu.txt" | head -120
fi
echo "total $(($(date +%s) - start)) s"
