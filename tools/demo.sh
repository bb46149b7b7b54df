#!/usr/bin/env bash
# The main job: set up, build the `tessel` CLI (preset "default") and show `tessel layout` at
# work on a few CuTe layout-algebra expressions.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default --target tessel

tessel=build/default/bin/tessel

# Print the command (shell-quoted where needed), then run it.
run() {
  local line="$ tessel" arg
  for arg in "$@"; do
    if [[ "$arg" =~ ^[-A-Za-z0-9_./]+$ ]]; then line+=" $arg"; else line+=" '$arg'"; fi
  done
  printf '\n%s\n' "$line"
  "$tessel" "$@"
}

run layout \
  '(4,8):(8,1)' \
  'coalesce((2,(1,6)):(1,(6,2)))' \
  'composition((6,2):(8,2),(4,3):(3,1))' \
  'complement(4:2,24)' \
  'zipped_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)' \
  'make_layout_tv((4,32):(32,1),(4,4):(4,1))'

run layout --table '(4,8):(8,1)'
