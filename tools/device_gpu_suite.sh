#!/usr/bin/env bash
# device_gpu_suite.sh: every GPU test of the suite (ctest -R gpu), then the sweep's first rows
# through the one call as a spot check. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel tessel_tests
timeout "${TEST_S:-330}" ctest --test-dir build/device -R gpu -j8 --output-on-failure > "$OUT/gpu_tests.log" 2>&1
echo "ctest: rc=$?"
grep -E "tests passed|tests failed|Failed|\*\*\*|Timeout" "$OUT/gpu_tests.log" | head -20
timeout 120 build/device/bin/tessel bench gemm --sweep --rows "${ROWS:-1-2}" --one-call --iters 10 --warmup 3 --seed 23 2>&1 |
  grep -E "^[0-9]|geometric"
