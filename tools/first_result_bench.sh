#!/usr/bin/env bash
# first_result_bench.sh: time from process start to the first correct Hopper GEMM result, with the
# compiled-kernel cache cold and warm (issue 21). Each row is one whole `tessel run` process
# (start, generation, module load, launch, check against the host, exit), timed from outside.
#
#   tools/first_result_bench.sh [PATH/TO/tessel] [REPEATS]   (default build/device/bin/tessel, 3)
#
# CUDA_CACHE_DISABLE=1 keeps the driver's own JIT cache (~/.nv/ComputeCache) out of every row
# except the last pair, so that "cold" really compiles; the cache directory is a fresh temporary
# one. Needs a GPU of compute capability 9.0 (the Hopper GEMM is sm_90a).
set -uo pipefail
tessel="${1:-build/device/bin/tessel}"
repeats="${2:-3}"
dir="$(mktemp -d)"
trap 'rm -rf -- "$dir"' EXIT

# One process; prints its wall time in ms, or FAIL with its output.
run_ms() {
  local t0 t1 out
  t0=$(date +%s%N)
  out=$("$@" 2>&1)
  local rc=$?
  t1=$(date +%s%N)
  if [ $rc -ne 0 ] || ! grep -q "^ok" <<< "$out"; then
    echo "FAIL: $out" >&2
    echo "FAIL"
    return
  fi
  echo $(((t1 - t0) / 1000000))
}

for config in "hopper_gemm" "hopper_gemm --tile-m 128 --tile-n 256 --cluster-m 2"; do
  read -r -a argv <<< "$config"
  echo "== tessel run $config"
  for r in $(seq "$repeats"); do
    rm -rf -- "$dir/cache"
    cold=$(TESSEL_CACHE_DIR="$dir/cache" CUDA_CACHE_DISABLE=1 run_ms "$tessel" run "${argv[@]}")
    warm=$(TESSEL_CACHE_DIR="$dir/cache" CUDA_CACHE_DISABLE=1 run_ms "$tessel" run "${argv[@]}")
    off=$(TESSEL_CACHE=0 CUDA_CACHE_DISABLE=1 run_ms "$tessel" run "${argv[@]}")
    # For comparison: tessel's cache off, the driver's JIT cache on (a fresh one, filled by the first run).
    nv1=$(TESSEL_CACHE=0 CUDA_CACHE_PATH="$dir/nv$r" run_ms "$tessel" run "${argv[@]}")
    nv2=$(TESSEL_CACHE=0 CUDA_CACHE_PATH="$dir/nv$r" run_ms "$tessel" run "${argv[@]}")
    echo "repeat $r: tessel cache cold ${cold} ms, warm ${warm} ms; no cache ${off} ms; driver JIT cache only: cold ${nv1} ms, warm ${nv2} ms"
  done
done
