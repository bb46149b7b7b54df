#!/usr/bin/env bash
# device_producer.sh: the producer branch's checks on the device machine (H100/H200): a Release
# build of tessel and tessel_tests, the GPU tests of the paths it touched (every Hopper GEMM with
# beta != 0 now prefetches C into the L2 from the producer; the one-call ranking's choice between
# padding and transposing copies), then `tessel bench gemm` on issue 18's rows and a few more.
# Logs under $OUT. One device call is at most 10 minutes and the three steps together take more
# (build a few minutes; tests up to 9: the four parts of the distinct-C test took about 100 s each
# on an H100; bench about 3), so run them as three calls (the build is kept between them):
#   bash tools/device_producer.sh build; bash tools/device_producer.sh tests; bash tools/device_producer.sh bench
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
STEP="${1:-all}"
T=build/device/bin/tessel
if [[ "$STEP" == all || "$STEP" == build ]]; then
  device_build tessel tessel_tests
fi
if [[ "$STEP" == all || "$STEP" == tests ]]; then
  # C of its own in either major and beta 0 with C NaN (the prefetch's branch both ways), the
  # one-call copies (now padding an N-major B in its own major), K = 0 (no k-tile after the prefetch).
  timeout 540 build/device/tests/tessel_tests \
    -tc="gemm: gpu*,hopper_gemm: gpu a C of its own*,hopper_gemm: gpu K = 0*" > "$OUT/tests.log" 2>&1
  echo "tests: exit $?"
  grep -E "ERROR|SKIPPED|test cases|assertions" "$OUT/tests.log" | head -20
fi
if [[ "$STEP" == all || "$STEP" == bench ]]; then
  # Issue 18's rows, then rows it does not have; the beta-0 and row-major twins of the first row
  # say how much of its time is the C epilogue and whether out's major matters.
  for p in "--m 2000 --n 1500 --k 1000 --b-major k --out-major m --alpha 0.5 --beta 2" \
           "--m 2000 --n 1500 --k 1000 --b-major k --out-major m --alpha 0.5 --beta 0" \
           "--m 2000 --n 1500 --k 1000 --b-major k --out-major n --alpha 0.5 --beta 2" \
           "--m 2000 --n 1500 --k 1000 --out-major m --alpha 0.5 --beta 2" \
           "--l 7 --m 333 --n 555 --k 777 --dtype f16 --out f32" \
           "--m 1000 --n 3000 --k 777" \
           "--m 3000 --n 3000 --k 3000 --dtype f32" \
           "--m 4095 --n 2047 --k 1001 --out-major m --beta 1" \
           "--m 512 --n 512 --k 333 --dtype f16" \
           "--m 6000 --n 2000 --k 999 --a-major m"; do
    echo "== tessel bench gemm $p"
    timeout 60 $T bench gemm $p --iters 20 --warmup 5 2>&1 | grep -vE "^(device|cuBLAS|method):|^$"
  done 2>&1 | tee "$OUT/bench.txt"
  echo "== tessel gemm (the one-call choice, checked against the host)"
  timeout 60 $T gemm --m 2000 --n 1500 --k 1000 --out-major m --alpha 0.5 --beta 2 2>&1 | tail -4 | tee -a "$OUT/bench.txt"
fi
