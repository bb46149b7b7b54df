#!/usr/bin/env bash
# device_swap_proto.sh TREE: a prototype tree's row-20 kernels (a column-major out computed as it
# is, 128xN _swap tiles) beside main's choice, through tessel bench --kernel. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
t="$1"
(cd "$t" && cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build_proto.log" 2>&1 &&
  cmake --build build/device -j"$(nproc)" --target tessel >> "$OUT/build_proto.log" 2>&1) || { tail -30 "$OUT/build_proto.log"; exit 1; }
T="$t/build/device/bin/tessel"
$T list 2>&1 | grep -E "128x(128|192|256)x64_s[0-9]+_kkc_swap"
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
for round in 1 2; do
  for k in $($T list 2>&1 | grep -oE "tessel_hopper_gemm_bf16_bf16_128x(128|192|256)x64_s[0-9]+_kkc_swap") \
           tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc_c1x2 tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc; do
    for p in "$row20" "--m 4096 --n 4096 --k 4096 --a-major k --b-major k --out-major m --beta 1"; do
      timeout 60 $T bench gemm $p --kernel $k --iters 20 --warmup 5 --seed 40 2>&1 | grep -E "^[0-9]|rror" | tr -s ' '
    done
  done
done 2>&1 | tee "$OUT/swap_proto.txt"
