#!/usr/bin/env bash
# device_hostpath.sh: the host time of repeated one-call launches on the device machine (issue 18
# item 1, issue 21 items 3 and 4). Builds Release (only the targets needed), runs the host-path
# tests (CPU, on the stand-in driver) and the GPU tests of tessel::gemm and tessel::elementwise,
# then tessel_host_bench (host time per call around N calls, CUDA events per call, elementwise add
# against cuMemcpyDtoD of the same bytes) and tessel_elementwise_bench (bandwidth, one timed launch
# at a time). Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel_tests tessel_host_path_tests tessel_host_bench tessel_elementwise_bench
echo "== host-path tests (stand-in driver)"
timeout 120 build/device/tests/stand_in_driver/tessel_host_path_tests > "$OUT/host_path_tests.log" 2>&1
grep -E "ERROR|test cases|assertions" "$OUT/host_path_tests.log" | head -20
echo "== GPU tests: tessel::gemm, tessel::elementwise"
timeout 300 build/device/tests/tessel_tests -tc="gemm: gpu*,kernels: gpu elementwise*" > "$OUT/gpu_tests.log" 2>&1
grep -E "ERROR|test cases|assertions" "$OUT/gpu_tests.log" | head -20
echo "== tessel_host_bench (host us per call: wall clock around N calls; device us: events around them)"
timeout 240 build/device/bin/tessel_host_bench --calls 1000 2>&1 | tee "$OUT/host_bench.txt"
echo "== the same on the stand-in driver (this machine's CPU, no GPU work)"
TESSEL_LIBCUDA="$PWD/build/device/tests/stand_in_driver/libtessel_stand_in_cuda.so" TESSEL_CACHE=0 \
  timeout 120 build/device/bin/tessel_host_bench --calls 1000 2>&1 | tee "$OUT/host_bench_stand_in.txt"
echo "== tessel_elementwise_bench"
timeout 240 build/device/bin/tessel_elementwise_bench --reps 30 2>&1 | tee "$OUT/elementwise_bench.txt"
