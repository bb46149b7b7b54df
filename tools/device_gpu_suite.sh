#!/usr/bin/env bash
# device_gpu_suite.sh: every GPU test of the suite (ctest -R gpu), then the sweep's first rows
# through the one call as a spot check. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel tessel_tests
device_gpu_tests 330
timeout 120 build/device/bin/tessel bench gemm --sweep --rows "${ROWS:-1-2}" --one-call --iters 10 --warmup 3 --seed 23 2>&1 |
  grep -E "^[0-9]|geometric"
