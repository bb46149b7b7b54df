#!/usr/bin/env bash
# device_gen_ab.sh DIR: generation time on this CPU, this tree against the tree in DIR (another
# commit's source), alternating three runs each of `tessel_codegen_bench --reps 15 --warmup 3
# hopper_gemm`; median/p90/max per configuration and the count at or over 1 ms. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
BASE="$1"
device_build tessel_codegen_bench
(cmake -S "$BASE" -B "$BASE/build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/base_build.log" 2>&1 &&
  cmake --build "$BASE/build" -j"$(nproc)" --target tessel_codegen_bench >> "$OUT/base_build.log" 2>&1) ||
  { tail -20 "$OUT/base_build.log"; exit 1; }
pct() { cut -d' ' -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END { printf "%.0f/%.0f/%.0f", v[int((NR + 1) / 2)], v[int(NR * 0.9)], v[NR] }'; }
for r in 1 2 3; do
  for which in base new; do
    if [ $which = base ]; then b="$BASE/build/bin/tessel_codegen_bench"; else b=build/device/bin/tessel_codegen_bench; fi
    $b --reps 15 --warmup 3 hopper_gemm > "$OUT/$which$r.txt" 2>&1
    awk 'NF == 6 && $1 ~ /^tessel_/ { print $4, $5, $6 }' "$OUT/$which$r.txt" > "$OUT/c$which$r.txt"
    echo "$which run $r ($(cut -d' ' -f1 /proc/loadavg)): $(wc -l < "$OUT/c$which$r.txt") configurations; median/p90/max us: total $(pct "$OUT/c$which$r.txt" 3)," \
      "generate $(pct "$OUT/c$which$r.txt" 1), print $(pct "$OUT/c$which$r.txt" 2); at or over 1 ms: $(awk '$3 >= 1000' "$OUT/c$which$r.txt" | wc -l)"
  done
done | tee "$OUT/ab.txt"
