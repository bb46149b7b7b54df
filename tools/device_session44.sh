#!/usr/bin/env bash
# device_session44.sh: the cost model's DRAM term per device and its refit on the H200; where row
# 28's gap to row 20 lies.
#   cmajor: one kernel (row 20's and 28's pick) on row 20 (C = out, M-major), a C of its own in
#     out's major, row 28's C (N-major, 3000-byte rows: in lines) and that C padded to the granules
#     (N-major, whole boxes): which of the C's major and its lines costs the time. Two rounds.
#   durations: the same four, each kernel's own time under ncu (gpu__time_duration of 10 launches
#     after 3, the GPU's own clocks): no launch or host time in it.
#   ncusrc: row 28 (C in lines) and its C padded, one launch each under ncu with warp-state
#     sampling; each report's SASS with its samples as CSV ($OUT/lines.csv, $OUT/padded.csv).
#   sweep: issue 18's rows 16-33 through the one call.
#   llama: the Llama 8B weight gradients (rows 26-50 of `--llama --llama-model 8b`) through the one call.
#   tests: every GPU test of the suite.
# Modes run in the order given (`cmajor sweep tests`); logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
B=build/device/bin
row20="--m 2000 --n 1500 --k 1000 --a-major k --b-major k --out-major m --alpha 0.5 --beta 2"
device_build tessel
for mode in "${@:-cmajor}"; do
  case "$mode" in
  cmajor)
    k=tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc_c1x2
    for round in 1 2; do
      for c in "" "--c-major m" "--c-major n" "--c-major n --pad-ld"; do
        printf "round %s %-22s " "$round" "${c:-C = out}"
        timeout 40 $B/tessel bench gemm $row20 $c --kernel $k --iters 20 --warmup 5 --seed 44 2>&1 |
          grep -E "^[0-9]" | tr -s ' '
      done
    done 2>&1 | tee "$OUT/cmajor.txt" ;;
  durations)
    k=tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc_c1x2
    for c in "" "--c-major m" "--c-major n" "--c-major n --pad-ld"; do
      printf "%-22s " "${c:-C = out}"
      timeout 100 ncu -k "regex:$k\$" --launch-skip 3 --launch-count 10 --clock-control none --csv \
        --metrics gpu__time_duration.sum $B/tessel bench gemm $row20 $c --kernel $k --iters 12 --warmup 5 2>/dev/null |
        grep gpu__time_duration | awk -F'","' '{gsub(/[",]/, "", $NF); print $NF}' | sort -n | tr '\n' ' '
      echo
    done 2>&1 | tee "$OUT/durations.txt" ;;
  ncusrc)
    k=tessel_hopper_gemm_bf16_bf16_128x192x64_s4_kkc_c1x2
    for v in lines padded; do
      pad=$([ $v = padded ] && echo --pad-ld)
      timeout 150 ncu -k "regex:$k\$" --launch-skip 3 --launch-count 1 --clock-control none \
        --section SourceCounters --section WarpStateStats --section SpeedOfLight -o "$OUT/$v" \
        $B/tessel bench gemm $row20 --c-major n $pad --kernel $k --iters 3 --warmup 3 > /dev/null 2>&1
      ncu --import "$OUT/$v.ncu-rep" --page source --csv --print-source sass > "$OUT/$v.csv" 2>&1
      echo "== $v: $(wc -l < "$OUT/$v.csv") lines"
      ncu --import "$OUT/$v.ncu-rep" --page details 2>&1 | grep -E "Duration|SM Active|Warp Cycles Per Issued"
    done ;;
  sweep)
    timeout 150 $B/tessel bench gemm --sweep --rows 16-33 --one-call --iters 20 --warmup 5 --seed 44 2>&1 |
      grep -vE "^\s*$" | tee "$OUT/sweep.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
  llama)
    timeout 280 $B/tessel bench gemm --llama --llama-model 8b --rows 26-50 --one-call --iters 10 --warmup 3 \
      --seed 44 2>&1 |
      grep -vE "^\s*$" | tee "$OUT/llama_wgrad.txt" | grep -E "^\s*[0-9]|geometric|error" ;;
  tests)
    device_build tessel_tests
    device_gpu_tests 300 ;;
  *) echo "device_session44.sh: unknown mode $mode"; exit 2 ;;
  esac
done
