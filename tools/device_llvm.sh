#!/usr/bin/env bash
# device_llvm.sh: issue 20's GPU half on the device machine, which has no LLVM 22: the LLVM-road
# binaries are built here with TESSEL_LLVM_STATIC=ON (self-contained), packed by
#   bash tools/device_llvm.sh --pack      (on the development machine: build/carry/llvm-bins.tar.xz)
# and carried (run's carry: ["build/carry"]); on the device machine, without arguments, it runs
# the GPU tests of both roads (tessel_llvm_tests 'codegen_llvm: gpu*', in parallel processes) and
# `tessel bench gemm` through each road. Logs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --pack ]]; then
  cmake -S . -B build/llvm-static -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSEL_WITH_LLVM=ON -DTESSEL_LLVM_STATIC=ON &&
    cmake --build build/llvm-static --target tessel tessel_llvm_tests tessel_elementwise_bench -j"$(nproc)" || exit 1
  rm -rf build/carry && mkdir -p build/carry/bin
  strip -o build/carry/bin/tessel build/llvm-static/bin/tessel
  strip -o build/carry/bin/tessel_llvm_tests build/llvm-static/tests/tessel_llvm_tests
  strip -o build/carry/bin/tessel_elementwise_bench build/llvm-static/bin/tessel_elementwise_bench
  tar -C build/carry -cJf build/carry/llvm-bins.tar.xz bin && rm -rf build/carry/bin
  ls -la build/carry
  exit 0
fi
source tools/device_common.sh
mkdir -p build/llvm-bins
tar -C build/llvm-bins -xJf build/carry/llvm-bins.tar.xz || exit 1
B=build/llvm-bins/bin
# The GPU tests, one process per part (the driver's compiles of ~1100 artifacts dominate).
pids=()
for t in "codegen_llvm: gpu every catalog GEMM*(1 of 4)" "codegen_llvm: gpu every catalog GEMM*(2 of 4)" \
         "codegen_llvm: gpu every catalog GEMM*(3 of 4)" "codegen_llvm: gpu every catalog GEMM*(4 of 4)" \
         "codegen_llvm: gpu vector_copy*" "codegen_llvm: gpu elementwise*" "codegen_llvm: gpu tma_tile*" \
         "codegen_llvm: gpu wgmma_tile*" "codegen_llvm: gpu hopper_gemm*(1 of 6)" "codegen_llvm: gpu hopper_gemm*(2 of 6)" \
         "codegen_llvm: gpu hopper_gemm*(3 of 6)" "codegen_llvm: gpu hopper_gemm*(4 of 6)" \
         "codegen_llvm: gpu hopper_gemm*(5 of 6)" "codegen_llvm: gpu hopper_gemm*(6 of 6)"; do
  [[ -n ${ONLY:-} && $t != *"$ONLY"* ]] && continue
  log="$OUT/gpu_$(echo "$t" | tr -cs 'a-z0-9' '_').log"
  ( timeout "${PART_LIMIT:-420}" $B/tessel_llvm_tests -tc="$t" > "$log" 2>&1; echo "rc $? $t" >> "$log" ) &
  pids+=($!)
done
wait "${pids[@]}"
for f in "$OUT"/gpu_*.log; do
  echo "== $(tail -1 "$f")"
  grep -E "ERROR|test cases|assertions" "$f" | head -8
done
if [[ ${BENCH:-1} != 0 ]]; then
  # Each road's GEMM (8192^3 and the sweep) and elementwise bandwidth, the roads in alternation.
  for b in ptx llvm; do
    echo "== TESSEL_BACKEND=$b tessel bench gemm --m 8192 --n 8192 --k 8192"
    TESSEL_BACKEND=$b timeout 90 $B/tessel bench gemm --m 8192 --n 8192 --k 8192 --iters 20 --warmup 5 2>&1 |
      grep -vE "^(seed|method):|^$"
  done 2>&1 | tee "$OUT/bench.txt"
  for b in ptx llvm; do
    echo "== TESSEL_BACKEND=$b tessel bench gemm --sweep"
    TESSEL_BACKEND=$b timeout "${SWEEP_LIMIT:-170}" $B/tessel bench gemm --sweep 2>&1 | grep -vE "^(seed|method):|^$"
  done 2>&1 | tee "$OUT/bench_sweep.txt"
  for b in ptx llvm; do
    echo "== TESSEL_BACKEND=$b tessel_elementwise_bench"
    TESSEL_BACKEND=$b timeout 90 $B/tessel_elementwise_bench --reps 20 2>&1
  done 2>&1 | tee "$OUT/bench_elementwise.txt"
fi
