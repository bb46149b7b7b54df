#!/usr/bin/env bash
# Register counts of both roads to PTX side by side, from the tables the differential test writes
# (build/llvm/tests/codegen_llvm_registers_part*.tsv; run `ctest --preset llvm` first): a summary
# per kernel family (how many configurations use fewer, as many, more registers through LLVM, and
# the range of the difference), then, with --all, every configuration. Markdown, for
# docs/performance.md. Usage: tools/llvm_registers.sh [--all] [BUILD_DIR]
set -euo pipefail

all=0
if [[ "${1:-}" == "--all" ]]; then
  all=1
  shift
fi
dir=${1:-build/llvm}/tests
shopt -s nullglob
tables=("$dir"/codegen_llvm_registers_part*.tsv)
if ((${#tables[@]} == 0)); then
  echo "llvm_registers.sh: no $dir/codegen_llvm_registers_part*.tsv (run: ctest --preset llvm)" >&2
  exit 1
fi

# The rows, header lines dropped: configuration, target, printer's registers, LLVM's, smem.
rows=$(for t in "${tables[@]}"; do tail -n +2 "$t"; done | sort)

echo "| family | configurations | LLVM fewer | same | LLVM more | LLVM - printer (min / mean / max) |"
echo "|---|---|---|---|---|---|"
awk -F'\t' '
  { split($1, w, " "); f = w[1]; d = $4 - $3; n[f]++; s[f] += d
    if (d < 0) lo[f]++; else if (d == 0) eq[f]++; else hi[f]++
    if (!(f in mn) || d < mn[f]) mn[f] = d; if (!(f in mx) || d > mx[f]) mx[f] = d
    N++; S += d; if (d < 0) LO++; else if (d == 0) EQ++; else HI++
    if (N == 1 || d < MN) MN = d; if (N == 1 || d > MX) MX = d }
  END {
    for (f in n) printf "| %s | %d | %d | %d | %d | %d / %+.1f / %+d |\n", f, n[f], lo[f], eq[f], hi[f], mn[f], s[f] / n[f], mx[f] | "sort"
    close("sort")
    printf "| all | %d | %d | %d | %d | %d / %+.1f / %+d |\n", N, LO, EQ, HI, MN, S / N, MX
  }' <<<"$rows"

if ((all)); then
  echo
  echo "| configuration | target | printer | LLVM | smem |"
  echo "|---|---|---|---|---|"
  awk -F'\t' '{ printf "| `%s` | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' <<<"$rows"
fi
