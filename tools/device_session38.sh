#!/usr/bin/env bash
# device_session38.sh PART: session 38's measurements of the epilogue's predicated element stores
# and the address's deeper constant addends (both shrink the generated PTX). PART 1: every GPU test,
# then issue 18's sweep rows 16-33 through the one call. PART 2: generation time of every Hopper
# GEMM configuration (tools/device_gen_time.sh), the SASS instruction counts of the kernels whose
# PTX before the change is in .device/base (if carried; `tessel dump` of 53d125a), and the sweep's rows
# 1-15. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
if [ "${1:-1}" = 1 ]; then
  device_build tessel tessel_tests tessel_codegen_bench
  device_gpu_tests 330
  timeout 240 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 38 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
else
  device_build tessel tessel_tests tessel_codegen_bench
  if [ -d .device/base ]; then
    echo "== SASS instructions (cuobjdump -sass), the PTX before -> after"
    for f in .device/base/*.ptx; do
      k=$(basename "$f" .ptx)
      $B/tessel dump "$k" -o "$OUT/$k.ptx"
      n=()
      for p in "$f" "$OUT/$k.ptx"; do
        ptxas -arch=sm_90a "$p" -o "$OUT/k.cubin" && n+=("$(cuobjdump -sass "$OUT/k.cubin" | grep -cE '^\s+/\*[0-9a-f]{4,}\*/')")
      done
      echo "$k: ${n[*]}"
    done
  fi
  timeout 200 $B/tessel bench gemm --sweep --rows 1-15 --one-call --iters 20 --warmup 5 --seed 38 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep1.txt" | grep -E "^\s*[0-9]|geometric|error"
  bash tools/device_gen_time.sh
fi
