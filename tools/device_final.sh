#!/usr/bin/env bash
# device_final.sh: issue 18's checks on the device machine in one call (tools/device.sh runs the
# whole suite): builds Release, runs the one-call GEMM GPU tests and the bench GPU tests, then
# `tessel bench gemm` on issue 18's problem classes (the one-call API against cuBLAS and against
# the fastest catalog kernel) and `tessel gemm` on the issue's problems. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel tessel_tests
timeout 200 build/device/tests/tessel_tests -tc="gemm: gpu*,cli bench gpu*" > "$OUT/tests.log" 2>&1
grep -E "ERROR|test cases|assertions" "$OUT/tests.log" | head -20
T=build/device/bin/tessel
for p in "--m 1000 --n 3000 --k 777" "--m 3000 --n 3000 --k 3000 --dtype f32" \
         "--m 2000 --n 1500 --k 1000 --b-major k --out-major m --alpha 0.5 --beta 2" \
         "--m 2000 --n 1500 --k 1000 --out-major m --alpha 0.5 --beta 2" \
         "--l 7 --m 333 --n 555 --k 777 --dtype f16 --out f32" "--m 8192 --n 8192 --k 8192" \
         "--m 4096 --n 4096 --k 4096 --dtype f32 --a-major m --b-major k"; do
  echo "== tessel bench gemm $p"
  timeout 75 $T bench gemm $p --iters 20 --warmup 5 2>&1 | grep -vE "^(device|seed|cuBLAS|method):|^$"
done 2>&1 | tee "$OUT/bench.txt"
