#!/usr/bin/env bash
# device_gpu_tests.sh BINARY [PATTERN]: every test case of a doctest BINARY whose name contains
# "gpu" (and matches PATTERN, a grep -E expression), each in its own process, JOBS (8) at a time,
# so that the driver's compiles of the suite run in parallel on the device machine's cores. Each
# process has LIMIT (400) seconds. Prints one line per test case and the failures' logs; logs
# under $OUT/gpu-tests/. Exit status: the number of test cases that failed (or timed out).
set -uo pipefail
BIN=$1
PATTERN=${2:-.}
OUT="${OUT:-$PWD/device-out}"
LOGS="$OUT/gpu-tests"
mkdir -p "$LOGS"
mapfile -t names < <("$BIN" --list-test-cases --no-version 2>/dev/null | sed -n 's/^\(.*gpu.*\)$/\1/p' | grep -E -- "$PATTERN")
run_one() {  # run_one INDEX NAME
  local log="$LOGS/$1.log"
  # doctest's -tc splits at commas and treats * ? as wildcards: a comma becomes '?'
  timeout "${LIMIT:-400}" "$BIN" -tc="${2//,/?}" > "$log" 2>&1
  local rc=$?
  local summary
  summary=$(grep -E "test cases:" "$log" | tr -s ' ')
  printf '%s\trc %d\t%s\t%s\n' "$1" "$rc" "$2" "${summary:-no summary}" >> "$LOGS/summary.tsv"
}
: > "$LOGS/summary.tsv"
i=0
for n in "${names[@]}"; do
  run_one "$i" "$n" &
  i=$((i + 1))
  while (( $(jobs -rp | wc -l) >= ${JOBS:-8} )); do wait -n; done
done
wait
sort -n "$LOGS/summary.tsv" | cut -f2- 
failed=$(awk -F'\t' '$2 != "rc 0"' "$LOGS/summary.tsv" | wc -l)
awk -F'\t' '$2 != "rc 0" {print $1}' "$LOGS/summary.tsv" | while read -r f; do
  echo "== failed: $(sed -n "s/^$f\t[^\t]*\t\([^\t]*\).*/\1/p" "$LOGS/summary.tsv")"
  grep -E -A12 "ERROR|error:|timed out" "$LOGS/$f.log" | head -40
done
echo "gpu test cases: ${#names[@]}, failed: $failed"
exit "$failed"
