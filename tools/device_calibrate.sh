#!/usr/bin/env bash
# device_calibrate.sh: measures the one-call GEMM's cost model on the device machine. For every
# problem of a list (default tools/bench/gemm_calibration.txt, the problems the model's constants
# were fitted to; tools/bench/gemm_validation.txt holds others), `tessel tune` times the model's
# best candidates and its best split-K ones: tables in $OUT/calibrate.txt (the model's rank, ms),
# winners in $OUT/tuning.json. Options:
#   --problems FILE   the list (one problem per line, as `tessel tune` options)
#   --candidates N    how many of the model's choices to time per problem (default 40)
#   --splits LIST     also time the best split-K choices at each of these counts (tune --splits)
#   --budget S        start no new problem after S seconds (default 360; a call's limit is 600)
#   --bench           also `tessel bench gemm` on each problem: cuBLAS, the fastest catalog kernel
#                     and the one-call choice ($OUT/bench.txt)
#   --first           first_result_bench.sh (issue 21)
#   --gpu-tests       the suite's GPU tests (ctest -R gpu) and compute-sanitizer on a clustered kernel
#   --clusters        each clustered 128x256 kernel against its tile without a cluster
#                     (`tessel bench gemm --kernel`) on a few problems ($OUT/clusters.txt)
#   TESTS=PATTERN     (environment) also build tessel_tests and run the test cases matching it
#   --ncu             ncu of the model's split-K kernel on 3072x768x12288, and of a clustered kernel
#                     and its tile without a cluster on 4096^3 ($OUT/ncu.txt, sass.csv per report)
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
PROBLEMS=tools/bench/gemm_calibration.txt CANDS=40 BUDGET=360 BENCH=0 FIRST=0 NCU=0 GPU_TESTS=0 CLUSTERS=0 TUNE=1 SPLITS=
while [ $# -gt 0 ]; do
  case "$1" in
    --problems) PROBLEMS="$2"; shift ;;
    --candidates) CANDS="$2"; shift ;;
    --budget) BUDGET="$2"; shift ;;
    --splits) SPLITS="--splits $2"; shift ;;
    --bench) BENCH=1 ;;
    --first) FIRST=1 ;;
    --ncu) NCU=1 ;;
    --gpu-tests) GPU_TESTS=1 ;;
    --clusters) CLUSTERS=1 ;;
    --no-tune) TUNE=0 ;;
    *) echo "device_calibrate.sh: unknown option $1"; exit 2 ;;
  esac
  shift
done
start=$(date +%s)
if [ "$GPU_TESTS" = 1 ]; then device_build; else device_build tessel; fi
T=build/device/bin/tessel
echo "build took $(($(date +%s) - start)) s"
if [ -n "${TESTS:-}" ]; then  # TESTS="doctest -tc pattern": those test cases only
  device_build tessel_tests
  timeout 300 build/device/tests/tessel_tests -tc="$TESTS" > "$OUT/tests.log" 2>&1
  grep -E "ERROR|FAILED|test cases|assertions" "$OUT/tests.log" | head -20
fi
if [ "$GPU_TESTS" = 1 ]; then
  timeout 400 ctest --test-dir build/device -R gpu -j8 --output-on-failure > "$OUT/gpu_tests.log" 2>&1
  grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/gpu_tests.log" | head -20
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool tessel run tessel_hopper_gemm_bf16_bf16_128x256x64_s4_knr_c2x1"
    timeout 120 compute-sanitizer --tool $tool $T run tessel_hopper_gemm_bf16_bf16_128x256x64_s4_knr_c2x1 \
      2>&1 | tail -4
  done | tee "$OUT/sanitizer.txt"
fi
if [ "$CLUSTERS" = 1 ]; then
  for p in "--m 4096 --n 4096 --k 4096" "--m 8192 --n 8192 --k 8192" "--m 3072 --n 768 --k 12288" "--m 2000 --n 3000 --k 1000"; do
    for k in 128x256x64_s4_knr 128x256x64_s4_knr_c2x1 128x256x64_s4_knr_c1x2 128x128x64_s6_knr 128x128x64_s6_knr_c2x1; do
      echo "== tessel bench gemm $p --dtype bf16 --kernel tessel_hopper_gemm_bf16_bf16_$k"
      timeout 60 $T bench gemm $p --dtype bf16 --kernel tessel_hopper_gemm_bf16_bf16_$k --iters 20 --warmup 5 2>&1 |
        grep -E "^[0-9]+x"
    done
  done | tee "$OUT/clusters.txt"
fi
# each_problem COMMAND...: `tessel COMMAND... PROBLEM` for every problem of the list, each headed
# by "== tessel COMMAND PROBLEM", none started after the budget.
each_problem() {
  grep '^--' "$PROBLEMS" | while read -r p; do
    if (($(date +%s) - start > BUDGET)); then echo "== budget spent: skipped $p"; continue; fi
    echo "== tessel $1 $p"
    timeout 120 $T "$@" $p 2>&1
  done
}
if [ "$TUNE" = 1 ]; then
  each_problem tune --candidates "$CANDS" $SPLITS --iters 10 --warmup 3 --out-file "$OUT/tuning.json" |
    grep -vE "^(seed|method):|^$" > "$OUT/calibrate.txt"
  grep -E "^== |fastest" "$OUT/calibrate.txt" | tail -80
fi
if [ "$BENCH" = 1 ]; then
  each_problem bench gemm --iters 20 --warmup 5 > "$OUT/bench.txt"
  grep -E "^[0-9]|one-call|budget" "$OUT/bench.txt" | tail -80
fi
if [ "$FIRST" = 1 ]; then
  bash tools/first_result_bench.sh "$T" 3 > "$OUT/first_result.txt" 2>&1
  cat "$OUT/first_result.txt"
fi
if [ "$NCU" = 1 ] && command -v ncu > /dev/null; then
  M="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters"
  {
    # tessel tune times the model's best data-parallel kernel, then its best split-K one: the
    # filter keeps the latter (its data-parallel twin is the 4096^3 row's kernel below).
    P="--m 3072 --n 768 --k 12288 --dtype bf16"
    echo "== ncu: tessel tune $P --candidates 1, the split-K kernel"
    timeout 200 ncu -k "regex:_sk$" --launch-skip 1 --launch-count 1 $M -o "$OUT/sk" \
      $T tune $P --candidates 1 --iters 2 --warmup 1 --out-file "$OUT/ncu_tuning.json" 2>&1 | grep -vE "^==PROF==|^\s*$"
    P="--m 4096 --n 4096 --k 4096 --dtype bf16"
    for k in tessel_hopper_gemm_bf16_bf16_128x256x64_s4_knr_c2x1 tessel_hopper_gemm_bf16_bf16_128x256x64_s4_knr; do
      echo "== ncu: tessel bench gemm $P --kernel $k"
      timeout 150 ncu -k "regex:$k\$" --launch-skip 2 --launch-count 1 $M -o "$OUT/${k##*_s4_}" \
        $T bench gemm $P --kernel $k --iters 2 --warmup 2 2>&1 | grep -vE "^==PROF==|^\s*$"
    done
    for r in "$OUT"/*.ncu-rep; do
      echo "== $r"
      ncu --import "$r" --page details 2>&1 | grep -vE "^\s*$" | grep -v -- '----'
      ncu --import "$r" --page source --csv --print-source sass > "${r%.ncu-rep}.sass.csv" 2>&1
    done
  } > "$OUT/ncu.txt" 2>&1
  grep -E "^== |Duration|SM Active|Stall|stall" "$OUT/ncu.txt" | head -60
fi
echo "total $(($(date +%s) - start)) s"
