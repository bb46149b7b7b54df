#!/usr/bin/env bash
# device_swap.sh: the swapped Hopper GEMMs (swap_ab, the _swap entries; issue 19 item 2) on the
# device machine: their GPU tests ($OUT/tests.log), then the decode-sized problems of a Llama-class
# model with every Hopper kernel (split-K ones at 1 to 4 splits) and tessel::gemm's own choice
# timed against cuBLAS in one process ($OUT/bench.txt).
#   bash tools/device_swap.sh [--no-tests] [--problems "M,N,K ..."]
source "$(dirname "$0")/device_common.sh"
TESTS=1
PROBLEMS="1,4096,4096 16,4096,4096 1,4096,14336 16,4096,14336 1,6144,4096 1,8192,8192 64,4096,4096 128,4096,4096"
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tests) TESTS=0 ;;
    --problems) PROBLEMS="$2"; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
  shift
done
start=$(date +%s)
if [ "$TESTS" = 1 ]; then device_build tessel tessel_tests; else device_build tessel; fi
T=build/device/bin/tessel
echo "build: $(($(date +%s) - start)) s"
if [ "$TESTS" = 1 ]; then
  timeout 240 build/device/tests/tessel_tests -tc="swap: gpu*,split-K: gpu M = 8..64*" > "$OUT/tests.log" 2>&1
  grep -E "ERROR|FAILED|test cases|assertions" "$OUT/tests.log" | head -20
  echo "tests: $(($(date +%s) - start)) s"
fi
for p in $PROBLEMS; do
  IFS=, read -r m n k <<< "$p"
  echo "== tessel bench gemm --m $m --n $n --k $k --a-major k --b-major k --class hopper_gemm --splits 2,3,4 --each"
  timeout 120 $T bench gemm --m "$m" --n "$n" --k "$k" --a-major k --b-major k --class hopper_gemm \
    --splits 2,3,4 --each --iters 10 --warmup 3 2>&1
  echo "== tessel bench gemm --m $m --n $n --k $k --a-major k --b-major k --one-call"
  timeout 60 $T bench gemm --m "$m" --n "$n" --k "$k" --a-major k --b-major k --one-call --iters 20 --warmup 5 2>&1
done > "$OUT/bench.txt"
grep -E "^== |^[0-9]+x|fastest" "$OUT/bench.txt" | head -120
echo "total $(($(date +%s) - start)) s"
