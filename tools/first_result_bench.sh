#!/usr/bin/env bash
# first_result_bench.sh: time from process start to the first correct GEMM result, with tessel's
# compiled-kernel cache cold, warm and off (issue 21). Each sample is one whole process (start,
# registry, choice, generation, module load, launch, check against the f64 host reference, exit),
# timed from outside; each row is the median of REPEATS samples.
#
#   tools/first_result_bench.sh [PATH/TO/tessel] [REPEATS]   (default build/device/bin/tessel, 5)
#
# The problems are fixed and small, with a fixed seed, so that every sample does the same work and
# the host reference stays a few milliseconds: the differences between the columns are the cache.
# Both caches (tessel's, and the driver's JIT cache, which keeps the kernels with setmaxnreg that
# tessel's does not load through: docs/runtime.md) are fresh temporary directories, then filled;
# the columns with CUDA_CACHE_DISABLE=1 show tessel's cache alone.
# The first row (`--explain` for sm_90 with 132 SMs) needs no GPU: the process floor (start-up,
# registry, ranking) without generation or a driver; the second is the driver's floor. The others
# need a GPU of compute capability 9.0.
set -uo pipefail
tessel="${1:-build/device/bin/tessel}"
repeats="${2:-5}"
dir="$(mktemp -d)"
trap 'rm -rf -- "$dir"' EXIT

# One process; prints its wall time in ms, or FAIL (its output on stderr).
run_ms() {
  local t0 t1 out rc
  t0=$(date +%s%N)
  out=$("$@" 2>&1)
  rc=$?
  t1=$(date +%s%N)
  if [ $rc -ne 0 ]; then
    echo "FAIL: $*: $out" >&2
    echo FAIL
    return
  fi
  echo $(((t1 - t0) / 1000000))
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR] = $1} END {print (NR ? a[int((NR + 1) / 2)] : "-")}'; }

floor=()
for _ in $(seq "$repeats"); do
  floor+=("$(run_ms "$tessel" gemm --m 256 --n 256 --k 256 --explain --cc 90 --sms 132)")
done
echo "process floor (tessel gemm --explain, no GPU): ${floor[*]} ms; median $(echo "${floor[*]}" | median) ms"
# The driver's own floor: a process that only loads libcuda, initialises it and makes device 0's
# primary context current (what every GPU column below pays before tessel does anything).
driver=()
for _ in $(seq "$repeats"); do
  driver+=("$(run_ms python3 -c 'import ctypes
c = ctypes.CDLL("libcuda.so.1"); d = ctypes.c_int(); x = ctypes.c_void_p()
assert c.cuInit(0) == 0 and c.cuDeviceGet(ctypes.byref(d), 0) == 0
assert c.cuDevicePrimaryCtxRetain(ctypes.byref(x), d) == 0 and c.cuCtxSetCurrent(x) == 0')")
done
echo "driver floor (python3: cuInit, device 0's primary context): ${driver[*]} ms; median $(echo "${driver[*]}" | median) ms"
echo
echo "| command | both caches cold | both warm | tessel's cache only: cold | warm | both off |"
echo "|---|---:|---:|---:|---:|---:|"
for config in "gemm --m 256 --n 256 --k 256 --seed 7" \
              "gemm --m 256 --n 512 --k 333 --dtype f16 --out f32 --seed 7" \
              "run hopper_gemm --tile-m 128 --tile-n 256 --cluster-m 2 --seed 7"; do
  read -r -a argv <<< "$config"
  cold=() warm=() t1=() t2=() off=()
  for r in $(seq "$repeats"); do
    # Both caches as a user has them (tessel's; the driver's JIT cache, which keeps the kernels
    # with setmaxnreg that tessel's does not: docs/runtime.md), fresh, then filled.
    rm -rf -- "$dir/cache" "$dir/nv"
    cold+=("$(TESSEL_CACHE_DIR="$dir/cache" CUDA_CACHE_PATH="$dir/nv" run_ms "$tessel" "${argv[@]}")")
    warm+=("$(TESSEL_CACHE_DIR="$dir/cache" CUDA_CACHE_PATH="$dir/nv" run_ms "$tessel" "${argv[@]}")")
    # tessel's cache alone (the driver's disabled): a Hopper GEMM compiles every time.
    rm -rf -- "$dir/cache"
    t1+=("$(TESSEL_CACHE_DIR="$dir/cache" CUDA_CACHE_DISABLE=1 run_ms "$tessel" "${argv[@]}")")
    t2+=("$(TESSEL_CACHE_DIR="$dir/cache" CUDA_CACHE_DISABLE=1 run_ms "$tessel" "${argv[@]}")")
    off+=("$(TESSEL_CACHE=0 CUDA_CACHE_DISABLE=1 run_ms "$tessel" "${argv[@]}")")
  done
  echo "| \`tessel $config\` | $(echo "${cold[*]}" | median) | $(echo "${warm[*]}" | median) |" \
       "$(echo "${t1[*]}" | median) | $(echo "${t2[*]}" | median) | $(echo "${off[*]}" | median) |"
done
echo
echo "(ms per process, median of $repeats; $(date -u +%F), $("$tessel" --version 2>/dev/null || echo tessel))"

# Where one process's time goes: the first GEMM row with TESSEL_PHASES=1 (each phase's end, in ms
# since the process started), cache cold and then warm; the last line is the wall clock measured
# from outside, so the gap after "main returns" is the teardown (static destructors, the context).
echo
for which in cold warm; do
  [ "$which" = cold ] && rm -rf -- "$dir/cache" "$dir/nv"
  echo "phases, both caches $which: tessel gemm --m 256 --n 256 --k 256 --seed 7"
  t0=$(date +%s%N)
  TESSEL_PHASES=1 TESSEL_CACHE_DIR="$dir/cache" CUDA_CACHE_PATH="$dir/nv" "$tessel" gemm --m 256 --n 256 --k 256 --seed 7 \
    2>&1 >/dev/null | grep '^tessel phase'
  t1=$(date +%s%N)
  echo "process exit (wall clock from outside): $(((t1 - t0) / 1000000)) ms"
done
