#!/usr/bin/env bash
# The main job: set up, build the `tessel` CLI (preset "default") and show the whole pipeline on
# this machine, GPU or not: the layout algebra and a TV layout's picture, the PTX of a Hopper GEMM
# assembled by ptxas with its resource report, and a GEMM and an elementwise kernel run on the CPU
# emulator and checked against a host reference; where a GPU and its driver are present, the same
# kernels run there too.
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

run layout --table 'make_layout_tv((2,4):(4,1),(2,2):(2,1))'

# The Hopper GEMM's PTX (TMA, mbarrier pipeline, wgmma, warp specialization), assembled by ptxas for
# sm_90a with its resource report, where a CUDA toolkit's ptxas is installed.
printf '\n$ tessel dump hopper_gemm --tile-m 128 --tile-n 128 --stats -o build/default/hopper_gemm.ptx\n'
if "$tessel" dump hopper_gemm --tile-m 128 --tile-n 128 --stats -o build/default/hopper_gemm.ptx; then
  echo "($(wc -l < build/default/hopper_gemm.ptx) lines of PTX in build/default/hopper_gemm.ptx)"
else
  echo "(no ptxas here: the PTX is in build/default/hopper_gemm.ptx, unassembled)"
fi

# The kernels on the CPU emulator: a Hopper GEMM and an elementwise operation on small random
# problems, every element checked against the host reference.
run run hopper_gemm --emulate --tile-m 64 --tile-n 64 --stages 2
run run elementwise --emulate --op axpby --dtype bf16 --rank 3 --majors crr

# On a GPU, the same kernels there.
if "$tessel" run elementwise --size 1 >/dev/null 2>&1 || [[ -e /dev/nvidia0 ]]; then
  run run hopper_gemm --tile-m 128 --tile-n 128
  run run elementwise --op axpby --dtype bf16 --rank 3 --majors crr
else
  printf '\n(no GPU here: `tessel run` without --emulate runs these kernels on one)\n'
fi
