#!/usr/bin/env bash
# device_session41.sh: C by lines (a C whose rows the TMA cannot describe, read by cp.async.bulk
# line by line in the epilogue instead of copied into the workspace). The GPU tests (every `gpu`
# test: the catalog, the one call's copies and C by lines against the f64 host reference), then
# issue 18's row 28 and its kin through the one call beside cuBLAS, each kernel's time under ncu
# for row 28, and rows 16-33 (`quick`: only the tests and the kin). Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
device_build tessel tessel_tests
timeout 330 ctest --test-dir build/device -R "gpu" -j4 --output-on-failure > "$OUT/gpu_tests.log" 2>&1
echo "ctest: rc=$?"; grep -E "tests passed|tests failed|Failed|\*\*\*|Timeout" "$OUT/gpu_tests.log" | head -20
echo "== row 28 and its kin (C's rows odd: by lines now)"
for p in "$row20 --c-major n" "$row20" "--m 4096 --n 3001 --k 4096 --out-major m --c-major n --beta 1" \
         "--m 3000 --n 5001 --k 2000 --out-major m --c-major n --beta 1" \
         "--m 2047 --n 3000 --k 2048 --dtype f16 --out f32 --c-major m --beta 1" \
         "--m 4096 --n 3002 --k 4096 --out-major m --c-major n --beta 1"; do
  timeout 60 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 41 2>&1 | grep -E "^\s*[0-9]|error|rror"
done 2>&1 | tee "$OUT/lines.txt"
[ "${1:-}" = quick ] && exit 0
echo "== row 28 under ncu"
timeout 150 ncu --metrics gpu__time_duration.sum --csv $B/tessel bench gemm $row20 --c-major n --one-call --iters 2 \
  --warmup 1 --seed 41 2> "$OUT/ncu_err.txt" | grep gpu__time_duration | awk -F'","' '{print $5 " | " $NF}' |
  sed 's/"//g' | sort | uniq -c | tee "$OUT/row28_ncu.txt"
timeout 200 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 41 2>&1 |
  grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
