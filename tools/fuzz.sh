#!/usr/bin/env bash
# Builds tessel's libFuzzer targets (tests/fuzz/; preset "fuzz": clang, AddressSanitizer,
# UndefinedBehaviorSanitizer) and runs each for a bounded time, from its seed corpus
# (tests/fuzz/corpus/<target>/) plus what earlier local runs found (build/fuzz/corpus/<target>/).
# Exits non-zero if any target finds a crash, a sanitizer report, a broken invariant, a hang
# (an input running longer than TESSEL_FUZZ_TIMEOUT seconds), a leak or an out-of-memory; the
# reproducer is written under build/fuzz/artifacts/<target>/ and its path printed.
#
# usage: bash tools/fuzz.sh [SECONDS [TARGET...]]
#   SECONDS   fuzzing time per target (default 60); TARGET: notation, calculator, kernel_args
#             (default: all)
# environment: TESSEL_FUZZ_TIMEOUT (seconds per input, default 5), TESSEL_FUZZ_RSS_MB (default
# 2048), TESSEL_FUZZ_JOBS (build parallelism, default: the number of cores).
# Reproduce a finding: build/fuzz/bin/tessel_fuzz_<target> build/fuzz/artifacts/<target>/<file>
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(notation calculator kernel_args)
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "fuzz.sh: SECONDS must be a positive integer, got '$seconds'" >&2
  exit 2
fi
timeout_s=${TESSEL_FUZZ_TIMEOUT:-5}
rss_mb=${TESSEL_FUZZ_RSS_MB:-2048}
jobs=${TESSEL_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

# --- Dependencies: setup.sh's, and clang with libFuzzer's runtime (Debian: libclang-rt-14-dev) ----
bash tools/setup.sh clang:clang++ libclang-rt-14-dev:

# --- Build the fuzzers only ----------------------------------------------------------------------
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --parallel "$jobs"

# --- Run each target -----------------------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=()
for t in "${targets[@]}"; do
  exe=build/fuzz/bin/tessel_fuzz_$t
  seeds=tests/fuzz/corpus/$t
  if [[ ! -x "$exe" || ! -d "$seeds" ]]; then
    echo "fuzz.sh: unknown target '$t' (no $exe or no $seeds)" >&2
    exit 2
  fi
  corpus=build/fuzz/corpus/$t
  artifacts=build/fuzz/artifacts/$t
  log=build/fuzz/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  args=(-max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" -print_final_stats=1
        -artifact_prefix="$artifacts/")
  if [[ -f tests/fuzz/$t.dict ]]; then
    args+=(-dict="tests/fuzz/$t.dict")
  fi
  echo "== fuzz $t: ${seconds}s, -timeout=${timeout_s}s, -rss_limit_mb=$rss_mb (log: $log)"
  stamp=$(mktemp)
  status=0
  "$exe" "${args[@]}" "$corpus" "$seeds" >"$log" 2>&1 || status=$?
  grep -m1 -E '^INFO: Seed: ' "$log" || true
  grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
  if ((status != 0)); then
    failed+=("$t")
    echo "== fuzz $t: FAILED (exit $status); its log from the report on:"
    # From the first report line (the harness's "=== tessel fuzz", a sanitizer's "==PID==", UBSan's
    # "runtime error", libFuzzer's ALARM for a hang), else the last 60 lines.
    first=$(grep -n -m1 -E '^(=== tessel fuzz|==[0-9]+==|ALARM:)|runtime error:' "$log" | cut -d: -f1 || true)
    if [[ -n "$first" ]]; then tail -n "+$first" "$log" | head -n 200; else tail -n 60 "$log"; fi
    while IFS= read -r f; do
      echo "== reproducer: $f"
      echo "   run it: $exe $f"
    done < <(find "$artifacts" -type f -newer "$stamp")
  else
    echo "== fuzz $t: ok"
  fi
  rm -f "$stamp"
done

if ((${#failed[@]} > 0)); then
  echo "fuzz.sh: findings in: ${failed[*]} (reproducers under build/fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz.sh: no findings"
