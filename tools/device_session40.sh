#!/usr/bin/env bash
# device_session40.sh: where the time of issue 18's row 28 goes (a C of its own whose rows the TMA
# cannot read, copied into the workspace by a launch before the GEMM). For row 28, the same
# problem with C = out (row 20) and 4096x3001x4096 with C's rows odd: the one call's time
# (tessel bench, beside cuBLAS), then every kernel's duration under ncu (gpu__time_duration: the
# copy, the GEMM, cuBLAS's kernels, each serialized). Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
device_build tessel
problems=(
  "--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --c-major n --alpha 0.5 --beta 2"
  "--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
  "--m 4096 --n 3001 --k 4096 --out-major m --c-major n --beta 1"
)
for p in "${problems[@]}"; do
  echo "== $p"
  timeout 60 $B/tessel bench gemm $p --one-call --iters 20 --warmup 5 --seed 40 2>&1 | grep -vE "^\s*$" | tail -6
  command -v ncu > /dev/null || { echo "no ncu"; continue; }
  timeout 150 ncu --metrics gpu__time_duration.sum --csv $B/tessel bench gemm $p --one-call --iters 2 --warmup 1 \
    --seed 40 2> "$OUT/ncu_err.txt" | grep gpu__time_duration | awk -F'","' '{print $5 " | " $NF}' |
    sed 's/"//g' | sort | uniq -c | head -20
done 2>&1 | tee "$OUT/row28.txt"
