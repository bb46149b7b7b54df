#!/usr/bin/env bash
# device_tune.sh: issue 19's optional tuning on the device machine: builds Release (tessel and
# tessel_tests only), runs the tuning GPU test (tessel tune on a small problem, then tessel::gemm
# runs the tuned kernel against the f64 host reference) and the CLI/cache CPU tests, then
# `tessel tune` on issue 19's rows and a few more (the table of candidates; the winners into
# $OUT/tuning.json), `tessel gemm --explain` on them with TESSEL_TUNING_CACHE set (the choice
# "from the tuning cache"), and `tessel bench gemm` on the same rows with TESSEL_TUNING_CACHE set
# (its tessel::gemm candidate runs the tuned kernels; its note compares the one-call choice with
# the fastest catalog kernel). Logs under $OUT. `tools/device_tune.sh [build] [tests] [tune]
# [bench]` runs those steps only (the default is all four; later steps build first if needed).
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
STEPS="${*:-build tests tune bench}"
if [[ " $STEPS " == *" build "* || ! -x build/device/bin/tessel || ! -x build/device/tests/tessel_tests ]]; then
  device_build tessel tessel_tests
fi
T=build/device/bin/tessel
CACHE="$OUT/tuning.json"
ROWS=("--m 3072 --n 768 --k 12288" "--m 8 --n 4096 --k 4096" "--m 8192 --n 8192 --k 1024"
      "--m 64 --n 4096 --k 4096" "--m 4096 --n 4096 --k 4096")
if [[ " $STEPS " == *" tests "* ]]; then
  timeout 300 build/device/tests/tessel_tests -tc="cli tune*,tuning cache*" > "$OUT/tests.log" 2>&1
  grep -E "ERROR|FAILED|TESSEL_SKIP|test cases|assertions" "$OUT/tests.log" | head -20
fi
if [[ " $STEPS " == *" tune "* ]]; then
  rm -f "$CACHE"
  for p in "${ROWS[@]}"; do
    echo "== tessel tune $p --dtype bf16"
    timeout 120 $T tune $p --dtype bf16 --candidates 8 --iters 20 --warmup 5 --out-file "$CACHE" 2>&1 |
      grep -vE "^(seed|method):|^$"
  done 2>&1 | tee "$OUT/tune.txt"
  echo "== $CACHE" | tee -a "$OUT/tune.txt"
  cat "$CACHE" | tee -a "$OUT/tune.txt"
  for p in "${ROWS[@]}"; do
    echo "== TESSEL_TUNING_CACHE=$CACHE tessel gemm $p --dtype bf16 --explain"
    TESSEL_TUNING_CACHE="$CACHE" timeout 30 $T gemm $p --dtype bf16 --explain 2>&1 | grep -A1 -E "^(choice|schedule)|warning"
  done 2>&1 | tee "$OUT/explain.txt"
fi
if [[ " $STEPS " == *" bench "* ]]; then
  [[ -f "$CACHE" ]] || { echo "no $CACHE: run the tune step first"; exit 1; }
  for p in "${ROWS[@]}"; do
    echo "== TESSEL_TUNING_CACHE=$CACHE tessel bench gemm $p --dtype bf16"
    TESSEL_TUNING_CACHE="$CACHE" timeout 110 $T bench gemm $p --dtype bf16 --iters 20 --warmup 5 2>&1 |
      grep -vE "^(device|seed|cuBLAS|method):|^$"
  done 2>&1 | tee "$OUT/bench.txt"
fi
