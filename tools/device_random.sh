#!/usr/bin/env bash
# device_random.sh: the GEMM on problems nobody chose (`tessel bench gemm --random`), on the device
# machine. Modes, run in the order given (default: tests bench):
#   tests   every GPU test of the suite (ctest -R gpu)
#   bench   the one call beside cuBLAS on N random problems drawn from SEED ($OUT/random_bench.txt):
#           each output checked against cuBLAS's and an f64 host reference at sampled elements
#   tune    `tessel tune` on the first TUNE_N of the same problems: the one call's pick against the
#           fastest timed candidate ($OUT/random_tune.txt, in tools/device_calibrate.sh's format, for
#           tools/bench/replay_picks.py)
# Environment: N (default 60), SEED (default 45), TUNE_N (default 30), BUDGET (seconds per mode,
# default 400). Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
N=${N:-60} SEED=${SEED:-45} TUNE_N=${TUNE_N:-30} BUDGET=${BUDGET:-400}
B=build/device/bin
device_build tessel
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(tests bench)
for mode in "${modes[@]}"; do
  case "$mode" in
  tests)
    device_build tessel_tests
    device_gpu_tests 330 ;;
  bench)
    timeout "$BUDGET" $B/tessel bench gemm --random "$N" --seed "$SEED" --one-call --iters 20 --warmup 5 2>&1 |
      tee "$OUT/random_bench.txt" | grep -E "^[0-9]|^\s+(warning|error)|geometric" ;;
  tune)
    start=$(date +%s)
    # --list's last column: the options that give each problem alone.
    $B/tessel bench gemm --random "$TUNE_N" --seed "$SEED" --list |
      awk '{i = index($0, " --"); if (i) print substr($0, i + 1)}' |
      while read -r p; do
        if (($(date +%s) - start > BUDGET)); then echo "== budget spent: skipped $p"; continue; fi
        echo "== tessel tune $p"
        timeout 120 $B/tessel tune $p --candidates 8 --splits 2,3,4 --iters 10 --warmup 3 \
          --out-file "$OUT/tuning.json" 2>&1 | grep -vE "^(seed|method):|^$"
      done > "$OUT/random_tune.txt"
    grep -E "^== |fastest" "$OUT/random_tune.txt" | tail -60 ;;
  *) echo "device_random.sh: unknown mode $mode"; exit 2 ;;
  esac
done
