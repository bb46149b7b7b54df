#!/usr/bin/env bash
# device.sh: the one script run on the device machine (a GPU, its driver, CMake; no doctest, no
# network). Builds tessel, runs the whole test suite (GPU tests included) and the benchmarks,
# and writes logs under $OUT (or ./device-out). Called as:
#   cp -r .device/include/doctest /usr/include/ && mkdir -p /usr/lib/cmake && \
#   cp -r .device/cmake/doctest /usr/lib/cmake/ && bash tools/device.sh
# (.device/ carries Debian's doctest headers and CMake files; see docs/building.md.)
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"

# The compiled-kernel cache of this run's tests and runs, beside the build (not the user's ~/.cache).
export TESSEL_CACHE_DIR="${TESSEL_CACHE_DIR:-$PWD/build/device/kernel-cache}"
export TESSEL_PTXAS="${TESSEL_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
device_build

# Every test, GPU ones included; -V keeps each test's output (skips print their reason).
(cd build/device && ctest -j12 --output-on-failure --timeout 600) > "$OUT/ctest.log" 2>&1
test_status=$?
grep -E "tests passed|tests failed|Skipped|Failed|\*\*\*" "$OUT/ctest.log" | tail -40

# The Hopper GEMM under compute-sanitizer (memcheck, synccheck, racecheck) on small problems.
for tool in memcheck synccheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 build/device/tests/tessel_tests \
    -tc="hopper_gemm: gpu K = 0*" > "$OUT/sanitizer_$tool.log" 2>&1
  echo "compute-sanitizer $tool: exit $? ($(grep -E 'SUMMARY' "$OUT/sanitizer_$tool.log" | tail -1))"
done
# The ptxas resource report of the Hopper GEMM configurations that the benchmark runs.
for t in "128 256" "128 128"; do
  set -- $t
  build/device/bin/tessel dump hopper_gemm --tile-m $1 --tile-n $2 > build/device/hg.ptx &&
    ptxas -arch=sm_90a -v build/device/hg.ptx -o /dev/null 2>&1 | grep -E "entry|registers|spill"
done > "$OUT/hopper_ptxas.txt" 2>&1
cat "$OUT/hopper_ptxas.txt"

# `tessel run` of every listed configuration, for the record: eight at a time, since the driver's
# PTX -> SASS compile of each Hopper GEMM (about 2 s, on the CPU) dominates a run. RUN_ALL=0 skips
# it: with the 812 listed configurations, the suite and this together may pass one call's 10 minutes.
if [ "${RUN_ALL:-1}" != 0 ]; then
  build/device/bin/tessel dump --list |
    xargs -P 8 -I{} sh -c 'build/device/bin/tessel run {}' > "$OUT/run_all.txt" 2>&1
  grep -c "^ok" "$OUT/run_all.txt" | sed 's/^/tessel run --all: ok lines: /'
  grep -E "FAIL|error" "$OUT/run_all.txt" | head
fi

# BENCH=0: stop here (tests only; one call of the device machine has 10 minutes).
[ "${BENCH:-1}" = 0 ] && exit $test_status
# Benchmarks (not tests): code generation latency, and the driver's PTX -> SASS time.
# (fewer repetitions than the defaults: a Hopper GEMM takes milliseconds to generate, and there are 304.)
build/device/bin/tessel_codegen_bench --reps 20 --warmup 3 > "$OUT/codegen_bench.txt" 2>&1
tail -3 "$OUT/codegen_bench.txt"
build/device/bin/tessel_load_bench --per-family 6 > "$OUT/load_bench.txt" 2>&1
head -5 "$OUT/load_bench.txt"
# Process start to the first correct Hopper GEMM result, compiled-kernel cache cold and warm.
bash tools/first_result_bench.sh build/device/bin/tessel 3 > "$OUT/first_result.txt" 2>&1
cat "$OUT/first_result.txt"
# Elementwise bandwidth against cuMemcpyDtoD and the CUDA C++ peer (compiled here by nvcc).
nvcc -ptx -arch=sm_90 -O3 -o build/device/peer_add.ptx tools/bench/peer_add.cu > "$OUT/peer_nvcc.log" 2>&1 &&
  peer=(--peer build/device/peer_add.ptx) || peer=()
build/device/bin/tessel_elementwise_bench "${peer[@]}" > "$OUT/elementwise_bench.txt" 2>&1
cat "$OUT/elementwise_bench.txt"
# GEMM TFLOP/s against cuBLAS (cublasLt, opened at run time; set TESSEL_CUBLASLT if it is not on the
# loader's path). A failure here must not change the script's exit status (the tests' status).
# GEMM_BENCH=0 leaves it to tools/device_gemm.sh (one call of the device machine has 10 minutes).
if [ "${GEMM_BENCH:-1}" != 0 ]; then
  { build/device/bin/tessel bench gemm --sweep > "$OUT/gemm_bench.txt" 2>&1; cat "$OUT/gemm_bench.txt"; } || true
fi
exit $test_status
