#!/usr/bin/env bash
# device_gen6.sh: issue 21 item 1 on the device machine's CPU (no GPU needed): builds Release, runs
# `tessel_codegen_bench --reps 15 --warmup 3 hopper_gemm` three times (every Hopper GEMM
# configuration generated and printed, median of 15 each) and prints median, 90th percentile and
# max per configuration; then the CPU's counters for one run where perf works (page faults,
# task-clock), to tell a slow CPU from a costly page fault. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel_codegen_bench
B=build/device/bin/tessel_codegen_bench
uptime | tee "$OUT/load.txt"
# pct FILE COLUMN: median, 90th percentile and max of a column of numbers (any awk).
pct() { cut -d' ' -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END { printf "%.0f/%.0f/%.0f", v[int((NR + 1) / 2)], v[int(NR * 0.9)], v[NR] }'; }
for r in 1 2 3; do
  $B --reps 15 --warmup 3 hopper_gemm > "$OUT/bench$r.txt" 2>&1
  # columns: name lines instrs generate print total (microseconds, medians of the reps)
  awk 'NF == 6 && $1 ~ /^tessel_/ { print $4, $5, $6 }' "$OUT/bench$r.txt" > "$OUT/cols$r.txt"
  echo "run $r: $(wc -l < "$OUT/cols$r.txt") configurations; median/p90/max us: total $(pct "$OUT/cols$r.txt" 3)," \
    "generate $(pct "$OUT/cols$r.txt" 1), print $(pct "$OUT/cols$r.txt" 2);" \
    "at or over 1 ms: $(awk '$3 >= 1000' "$OUT/cols$r.txt" | wc -l)"
done | tee "$OUT/summary.txt"
uptime | tee -a "$OUT/load.txt"
if command -v perf > /dev/null; then
  perf stat -e page-faults,task-clock $B --reps 3 --warmup 0 hopper_gemm 2>&1 > /dev/null | grep -E "page-faults|task-clock|elapsed" |
    tee "$OUT/perf_stat.txt"
fi
