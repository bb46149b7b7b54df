#!/usr/bin/env bash
# device_session42.sh: the one call's launches moved to new addresses (gemm/bound.hpp) instead of
# planned again. `ab OLD_TREE`: every GPU test, the host time per call (tessel_host_bench), then the
# one call beside cuBLAS on issue 18's rows 20, 28 and 16 and two short problems, alternating
# between this build and OLD_TREE's (an export of the commit before), three rounds; `sweep`:
# issue 18's rows 16-33 and the Llama 8B rows through the one call. Logs under $OUT.
# (Session 42's first run, of the swapped wide tiles since reverted, was this script's `each` at
# 16ce9bf: every hopper_gemm candidate timed by `--each` on those rows.)
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
case "${1:-ab}" in
ab)
  old="$2"
  device_build tessel tessel_tests tessel_host_bench
  device_build_old "$old"
  device_gpu_tests 240
  timeout 120 $B/tessel_host_bench --quick 2>&1 | tee "$OUT/host_bench.txt"
  device_alternate "$old" 3 42 "$row20" "$row20 --c-major n" "--m 1000 --n 3000 --k 777" \
    "--m 1024 --n 1024 --k 1024 --b-major k" "--m 512 --n 4096 --k 1024 --b-major k --beta 1" 2>&1 | tee "$OUT/ab.txt" ;;
sweep)
  device_build tessel
  timeout 200 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 42 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error"
  timeout 300 $B/tessel bench gemm --llama --llama-model 8b --one-call --iters 10 --warmup 3 --seed 42 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/llama8b.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
ceiling)
  # Row 28 (C in lines) beside the same C with padded rows (through the TMA, prefetched: what
  # reading C in lines could reach) and row 20 (C = out), alternating, three rounds.
  device_build tessel
  for round in 1 2 3; do
    for p in "$row20 --c-major n" "$row20 --c-major n --pad-ld" "$row20"; do
      timeout 60 $B/tessel bench gemm $p --one-call --iters 30 --warmup 5 --seed 42 2>&1 | grep -E "^[0-9]" | tr -s ' '
    done
  done 2>&1 | tee "$OUT/ceiling.txt" ;;
stores)
  # A store-bound weight gradient (Llama 8B's 4096 x 14336 x 128, A M-major, B N-major: 117 MB of
  # out from 2 k-tiles a tile) under ncu, tessel's pick against cuBLAS's kernel, one launch each
  # after two; then every hopper_gemm candidate's time.
  device_build tessel
  P="--m 4096 --n 14336 --k 128 --a-major m --b-major n"
  k=$($B/tessel gemm $P --explain 2>/dev/null | sed -n 's/^choice: \([^ ]*\).*/\1/p')
  echo "pick: $k"
  for re in "$k\$" nvjet; do
    timeout 150 ncu -k "regex:$re" --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
      --section MemoryWorkloadAnalysis --section LaunchStats \
      --metrics "dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg,lts__t_sectors_srcunit_tex_op_write.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio" \
      $B/tessel bench gemm $P --kernel $k --iters 3 --warmup 3 >> "$OUT/ncu_stores.txt" 2>&1
  done
  grep -E "^  [a-zA-Z_].*\(|Duration|Throughput|Warp Cycles|Issued|dram__|lts__t|cycles_active|stalled_(barrier|long|short|wait|membar|mio|lg|math|not_sel|sleep|drain|dispatch|branch|tex|imc|no_inst|selected)|Registers|Grid Size|Block Size|Shared Memory Config" \
    "$OUT/ncu_stores.txt" | grep -v "^ *----" | head -120
  timeout 120 $B/tessel bench gemm $P --class hopper_gemm --each --seed 42 > "$OUT/stores_each.txt" 2>&1
  grep -E " ms  " "$OUT/stores_each.txt" | sed 's/^[^0-9]*//' | sort -n | head -12
  grep -E "^[0-9]" "$OUT/stores_each.txt" ;;
barriers)
  # The epilogue's per-warpgroup barriers against OLD_TREE (the shared one), alternating, two
  # rounds, on store-bound and other problems; every GPU test first; then rows 16-33.
  old="$2"
  device_build tessel tessel_tests
  device_build_old "$old"
  device_gpu_tests 200
  device_alternate "$old" 2 42 "--m 4096 --n 14336 --k 128 --a-major m --b-major n" \
    "--m 28672 --n 4096 --k 128 --a-major m --b-major n" "$row20" "$row20 --c-major n" \
    "--m 4096 --n 4096 --k 4096 --b-major k" "--m 8192 --n 8192 --k 1024 --b-major k --beta 1" \
    "--m 3072 --n 768 --k 12288 --b-major k" 2>&1 | tee "$OUT/barriers.txt"
  timeout 150 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 42 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
wgrad)
  # The Llama 8B weight-gradient rows (A M-major, B N-major, K = tokens) through the one call.
  device_build tessel
  timeout 220 $B/tessel bench gemm --llama --llama-model 8b --rows 26-50 --one-call --iters 10 --warmup 3 --seed 42 2>&1 |
    grep -vE "^\s*$" | tee "$OUT/llama8b_wgrad.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
esac
