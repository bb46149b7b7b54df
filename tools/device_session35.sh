#!/usr/bin/env bash
# device_session35.sh: issue 18 rows 20 and 28 through the one call (twice: the run-to-run noise),
# row 28's copies and kernel under nsys-free timing (--each lists the candidates), and the 70B
# lm head's weight gradients (the rows `--llama` cannot reach) one by one. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel
B=build/device/bin
for r in 1 2; do
  for row in 20 28; do
    timeout 60 $B/tessel bench gemm --sweep --rows $row-$row --one-call --iters 20 --warmup 5 --seed $((17 + r)) 2>&1 |
      grep -vE "^\s*$" | tee -a "$OUT/rows.txt" | grep -E "^[0-9]|error"
  done
done
for T in 1 16 128 1024 8192; do
  timeout 90 $B/tessel bench gemm --m 128256 --n 8192 --k $T --a-major m --b-major n --one-call --iters 20 --warmup 5 \
    --seed 5 2>&1 | grep -vE "^\s*$" | tee -a "$OUT/lmhead.txt" | grep -E "^[0-9]|^ *1 |x8192x|error" | head -3
done
