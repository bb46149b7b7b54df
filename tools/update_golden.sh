#!/usr/bin/env bash
# update_golden.sh: regenerates the golden PTX in tests/data/golden/ from `tessel dump`.
#
# Run after an intended codegen change; review the diff (git diff tests/data/golden) as you would
# review code, since it is the change in what tessel emits. tests/cli_dump_test.cpp fails until the
# files match `tessel dump` again.
#
#   tools/update_golden.sh [PATH/TO/tessel]     (default: build/default/bin/tessel)
#
# The configurations live in tests/data/golden/CONFIGS (one `FILE ARGUMENTS...` per line), which
# the test reads too. .ptx files that CONFIGS no longer lists are removed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tessel="${1:-$root/build/default/bin/tessel}"
golden="$root/tests/data/golden"

if [[ ! -x "$tessel" ]]; then
  echo "error: $tessel is not an executable; build first (cmake --build --preset default) or pass its path" >&2
  exit 2
fi

declare -A listed=()
count=0
tmp=""
trap 'if [[ -n "$tmp" ]]; then rm -f -- "$tmp"; fi' EXIT  # a failed dump leaves no partial file
while read -r file args; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  if [[ "$file" == */* || "$file" != *.ptx ]]; then
    echo "error: CONFIGS: '$file' is not a .ptx file name" >&2
    exit 2
  fi
  read -r -a argv <<< "$args"  # split at spaces, never globbed
  tmp="$golden/$file.tmp"
  "$tessel" dump "${argv[@]}" -o "$tmp"
  mv -- "$tmp" "$golden/$file"
  tmp=""
  listed["$file"]=1
  count=$((count + 1))
done < "$golden/CONFIGS"

for f in "$golden"/*.ptx; do
  [[ -e "$f" ]] || continue
  name="$(basename "$f")"
  if [[ -z "${listed[$name]:-}" ]]; then
    rm -- "$f"
    echo "removed $name (not in CONFIGS)"
  fi
done

echo "wrote $count files in tests/data/golden; review them with: git diff -- tests/data/golden"
