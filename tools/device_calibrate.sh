#!/usr/bin/env bash
# device_calibrate.sh: measures the one-call GEMM's cost model on the device machine: `tessel tune`
# times the model's best candidates (and its best split-K ones) on every problem of
# tools/bench/gemm_calibration.txt; the tables go to $OUT/calibrate.txt, the winners to
# $OUT/tuning.json. tools/bench/calibration_report.py reads the tables: how far the model's pick is
# from the fastest, per problem. Optional later steps (after `--`): `first` runs
# first_result_bench.sh, `ncu` profiles a split-K and a data-parallel launch of one problem.
#   tools/device_calibrate.sh [CANDIDATES] [SECONDS] [-- first ncu]
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
CANDS="${1:-40}"
BUDGET="${2:-360}"  # stop starting new problems after this many seconds (the call's limit is 600)
EXTRA=" ${*:3} "
start=$(date +%s)
device_build tessel
T=build/device/bin/tessel
echo "build took $(($(date +%s) - start)) s"
grep '^--' tools/bench/gemm_calibration.txt | while read -r p; do
  if (($(date +%s) - start > BUDGET)); then echo "== budget spent: skipped $p"; continue; fi
  echo "== tessel tune $p"
  timeout 120 $T tune $p --candidates "$CANDS" --iters 10 --warmup 3 --out-file "$OUT/tuning.json" 2>&1 |
    grep -vE "^(seed|method):|^$"
done > "$OUT/calibrate.txt" 2>&1
grep -E "^== |fastest" "$OUT/calibrate.txt" | tail -80
if [[ "$EXTRA" == *" first "* ]]; then
  bash tools/first_result_bench.sh "$T" 3 > "$OUT/first_result.txt" 2>&1
  cat "$OUT/first_result.txt"
fi
if [[ "$EXTRA" == *" ncu "* ]] && command -v ncu > /dev/null; then
  {
  P="--m 3072 --n 768 --k 12288 --dtype bf16"
  # tessel tune times the model's best data-parallel kernels (128x256 among them) and its best
  # split-K one (128x256, 5 splits): one launch of each 128x256 kernel, after the warm-up.
  echo "== ncu: tessel tune $P --candidates 8, the 128x256 kernels"
  timeout 240 ncu -k "regex:128x256x64_s4_knr(_sk)?$" --launch-skip 2 --launch-count 10 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats \
    $T tune $P --candidates 8 --iters 3 --warmup 2 --out-file "$OUT/ncu_tuning.json" 2>&1 | grep -vE "^==PROF==|^\s*$"
  } > "$OUT/ncu.txt" 2>&1
  grep -E "^== |Duration|Throughput|Stall|Warp Cycles" "$OUT/ncu.txt" | head -60
fi
echo "total $(($(date +%s) - start)) s"
