#!/usr/bin/env bash
# device_copier_ab.sh: problems with a C the TMA cannot read (the copier warps) against the same
# problems with every leading dimension padded to 16 bytes (--pad-ld: C through the TMA), and issue
# 18's row 28, each through the one call. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
device_build tessel
bench() { timeout 120 $B/tessel bench gemm "$@" --one-call --iters 20 --warmup 5 --seed 36 2>&1 | grep -E "tessel::gemm" | cut -c1-40,60-; }
for r in 1 2; do
  timeout 150 $B/tessel bench gemm --sweep --rows 28-28 --one-call --iters 20 --warmup 5 --seed 36 2>&1 | grep -E "tessel::gemm"
done
for pad in "" --pad-ld; do
  echo "== ${pad:-as given}"
  bench --m 4096 --n 3001 --k 4096 --a-major k --b-major k --out-major m --c-major n --beta 1 $pad
  bench --m 4096 --n 3000 --k 4096 --a-major k --b-major k --out-major m --c-major n --beta 1 $pad
  bench --m 3001 --n 4096 --k 2048 --dtype f16 --out f32 --a-major k --b-major k --out-major n --c-major m --beta 1 $pad
  bench --m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --c-major n --alpha 0.5 --beta 2 $pad
done
