#!/usr/bin/env bash
# device_session43.sh: the epilogue's staging boxes, two to four per warpgroup (where shared memory
# has room), so that a tile's C boxes load under the mainloop and more TMA stores stay in flight.
#   ab OLD_TREE [VARIANT_TREE]: the one call beside cuBLAS, this build, OLD_TREE's (the commit
#     before) and VARIANT_TREE's (an experiment) alternating, two rounds, on rows where the change
#     applies and where it does not (EXTRA=1: and four short problems); then issue 18's rows 16-33
#     with this build (SWEEP=0: not). GPU_TESTS=1: every GPU test first. Logs under $OUT.
#   llama70: the Llama 70B rows through the one call.
#   below: every candidate on the weight-gradient rows below 0.9; the 70B lm head's gradients.
#   storebound: few-token weight gradients, the one call's pick beside 128x128 ping-pong.
#   ncu28: row 28 under ncu beside the same C padded.
#   tests: every GPU test of the suite.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
case "${1:-ab}" in
ab)
  old="$2" variant="${3:-}"
  device_build tessel
  device_build_old "$old"
  [ -n "$variant" ] && device_build_old "$variant"
  [ "${GPU_TESTS:-0}" = 1 ] && { device_build tessel_tests; device_gpu_tests 300; }
  device_alternate "$old $variant" 2 43 "$row20 --c-major n" "$row20" \
    "--m 3000 --n 5000 --k 2000 --b-major k --out-major m --beta 1" \
    "--m 1500 --n 2000 --k 1000 --c-major n --beta 2" \
    "--m 4096 --n 14336 --k 128 --a-major m --b-major n" "--m 128256 --n 4096 --k 16 --a-major m --b-major n" \
    "--m 4096 --n 4096 --k 4096 --b-major k" "--m 8192 --n 8192 --k 1024 --b-major k --beta 1" \
    ${EXTRA:+"--m 1024 --n 1024 --k 1024 --b-major k" "--m 512 --n 4096 --k 1024 --b-major k --beta 1" \
      "--m 16 --n 4096 --k 4096 --b-major k" "--m 2048 --n 2048 --k 2048 --b-major k"} 2>&1 | tee "$OUT/ab.txt"
  [ "${SWEEP:-1}" = 1 ] && timeout 150 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 43 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
llama70)
  # The Llama 70B rows through the one call, forward (rows 1-25) and weight gradients (26-50).
  device_build tessel
  for rows in 1-25 26-50; do
    timeout 265 $B/tessel bench gemm --llama --llama-model 70b --rows $rows --one-call --iters 10 --warmup 3 --seed 43 2>&1 |
      grep -vE "^\s*$" | tee "$OUT/llama70b_$rows.txt" | grep -E "^\s*[0-9]|geometric|error"
  done ;;
below)
  # The weight-gradient rows below 0.9: every hopper_gemm candidate's screening time (is it the
  # pick or the kernels?); then the 70B lm head's weight gradients (rows 46-50) through the one call.
  device_build tessel
  for p in "--m 10240 --n 8192 --k 128" "--m 128256 --n 4096 --k 16"; do
    echo "== $p --a-major m --b-major n --class hopper_gemm --each"
    timeout 90 $B/tessel bench gemm $p --a-major m --b-major n --class hopper_gemm --each --seed 43 > "$OUT/each.txt" 2>&1
    grep -E " ms  " "$OUT/each.txt" | sed 's/^[^0-9]*//' | sort -n | head -8
    grep -E "^[0-9]|one-call" "$OUT/each.txt"
  done 2>&1 | tee "$OUT/below.txt"
  timeout 170 $B/tessel bench gemm --llama --llama-model 70b --rows 46-50 --one-call --iters 10 --warmup 3 --seed 43 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/llama70b_46-50.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
storebound)
  # Weight gradients of few tokens after the model's ping-pong change: the one call's pick beside
  # the 128x128 ping-pong kernel it took before, each against cuBLAS in the same process.
  device_build tessel
  for p in "--m 128256 --n 4096 --k 16" "--m 57344 --n 8192 --k 16" "--m 4096 --n 14336 --k 16" \
    "--m 28672 --n 4096 --k 16" "--m 28672 --n 4096 --k 1" "--m 10240 --n 8192 --k 16"; do
    for how in "--one-call" "--kernel tessel_hopper_gemm_bf16_bf16_128x128x64_s6_mnr_pp"; do
      timeout 40 $B/tessel bench gemm $p --a-major m --b-major n $how --iters 20 --warmup 5 --seed 43 2>&1 |
        grep -E "^[0-9]" | tr -s ' '
    done
  done 2>&1 | tee "$OUT/storebound.txt" ;;
ncu28)
  # Row 28 (C in lines) beside the same C padded to the granules, one launch each after two, the
  # same kernel, at the GPU's own clocks: where its 5-6% goes (DRAM sectors of C, the epilogue's
  # shared loads, the TMA's line requests).
  device_build tessel
  k=tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc_c1x2
  for pad in "" "--pad-ld"; do
    echo "== row 28 $pad"
    timeout 150 ncu -k "regex:$k\$" --launch-skip 2 --launch-count 1 --clock-control none \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters \
      --metrics "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__inst_executed_op_shared_ld.sum" \
      $B/tessel bench gemm $row20 --c-major n $pad --kernel $k --iters 3 --warmup 3 2>&1 | grep -vE "^==PROF==|^\s*$"
  done > "$OUT/ncu28.txt" 2>&1
  grep -E "^== |Duration|dram__|lts__t|shared_ld|Throughput|Warp Cycles|Stall" "$OUT/ncu28.txt" | head -80 ;;
tests)
  device_build tessel tessel_tests
  device_gpu_tests 330 ;;
esac
