#!/usr/bin/env bash
# device_session39.sh PART: session 39's measurements of a C that the TMA cannot read, copied by
# the GEMM kernel's producer warps under the mainloop (issue 18's row 28). PART 1: every GPU test,
# then the problems with such a C through the one call, each beside the same problem with its
# leading dimensions padded to 16 bytes (C through the TMA, the ceiling), then issue 18's rows
# 16-33. PART 2: the same problems again (a second round). Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
device_build tessel tessel_tests
[ "${1:-1}" = 1 ] && device_gpu_tests 330
problems=(
  "--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --c-major n --alpha 0.5 --beta 2"
  "--m 4096 --n 3001 --k 4096 --out-major m --c-major n --beta 1"
  "--m 4096 --n 3002 --k 4096 --out-major m --c-major n --beta 1"
  "--m 3001 --n 4096 --k 2048 --dtype f16 --out f32 --c-major m --beta 1"
  "--m 1000 --n 1500 --k 2000 --out-major m --c-major n --beta 1"
  "--m 6000 --n 2000 --k 1000 --c-major n --beta 1 --out-major m"
)
for p in "${problems[@]}"; do
  for pad in "" "--pad-ld"; do
    echo "== $p $pad"
    timeout 60 $B/tessel bench gemm $p $pad --one-call --iters 20 --warmup 5 --seed 39 2>&1 |
      grep -vE "^\s*$" | tail -8
  done
done 2>&1 | tee "$OUT/c_copy.txt"
timeout 240 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 39 2>&1 |
  grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
