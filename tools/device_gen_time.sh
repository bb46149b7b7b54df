#!/usr/bin/env bash
# device_gen_time.sh: issue 21 item 1 on this CPU: `tessel_codegen_bench --reps 15 --warmup 3
# hopper_gemm` three times once the build's load has settled (1-minute load average below 1, or
# 180 s at most): per run the median/p90/max over configurations of each configuration's median
# time (total, generate, print) in microseconds, the count at or over 1 ms, and the slowest
# configurations. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_build tessel_codegen_bench
for i in $(seq 36); do
  awk '{ exit !($1 < 1.0) }' /proc/loadavg && break
  sleep 5
done
pct() { cut -d' ' -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END { printf "%.0f/%.0f/%.0f", v[int((NR + 1) / 2)], v[int(NR * 0.9)], v[NR] }'; }
for r in 1 2 3; do
  build/device/bin/tessel_codegen_bench --reps 15 --warmup 3 hopper_gemm > "$OUT/run$r.txt" 2>&1
  awk 'NF == 6 && $1 ~ /^tessel_/ { print $4, $5, $6, $1 }' "$OUT/run$r.txt" > "$OUT/c$r.txt"
  echo "run $r (load $(cut -d' ' -f1 /proc/loadavg)): $(wc -l < "$OUT/c$r.txt") configurations; median/p90/max us: total $(pct "$OUT/c$r.txt" 3)," \
    "generate $(pct "$OUT/c$r.txt" 1), print $(pct "$OUT/c$r.txt" 2); at or over 1 ms: $(awk '$3 >= 1000' "$OUT/c$r.txt" | wc -l)"
  sort -k3 -g "$OUT/c$r.txt" | tail -3 | awk '{ print "   slowest:", $4, $3, "us" }'
done | tee "$OUT/gen.txt"
