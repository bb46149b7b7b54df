#!/usr/bin/env bash
# device_session35_final.sh PART: session 35's closing measurements, in two calls (each under the
# device's 10-minute limit). PART 1: every GPU test of the suite (ctest -R gpu), then generation
# time on this CPU (tools/device_gen6.sh's three runs). PART 2: issue 18's sweep rows 16-33 through
# the one call. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
if [ "${1:-1}" = 1 ]; then
  device_build tessel tessel_tests tessel_codegen_bench
  device_gpu_tests 300
  bash tools/device_gen6.sh 2>&1 | grep -E "^run|load|page-faults|task-clock"
else
  device_build tessel
  timeout 420 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 35 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^[0-9]|geometric|error"
fi
