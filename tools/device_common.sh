# device_common.sh: what the device scripts (tools/device*.sh) share; sourced, not run. It makes
# $OUT (default ./device-out), moves to the repository root, writes what the machine is to
# $OUT/device.txt (and prints it), and defines device_build, device_gpu_tests, device_build_old and
# device_alternate.
set -uo pipefail
OUT="${OUT:-$PWD/device-out}"
mkdir -p "$OUT"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  echo "cuda: $(nvcc --version 2>/dev/null | tail -1)"
  echo "ptxas: $(ptxas --version 2>/dev/null | tail -1)"
  echo "cmake: $(cmake --version | head -1)"
  # The copy of the tree sent to the device may carry a stale .git: pass TESSEL_COMMIT=$(git rev-parse --short HEAD).
  echo "commit: ${TESSEL_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
} > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"

# device_build [TARGET ...]: the Release build in build/device (Ninja) of the targets given, or of
# everything; its log in $OUT/build.log. On failure prints the log's end and exits the script.
device_build() {
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
    cmake --build build/device -j"$(nproc)" "${targets[@]}" >> "$OUT/build.log" 2>&1 ||
    { tail -50 "$OUT/build.log"; echo "build failed"; exit 1; }
  echo "build: ok"
}

# device_gpu_tests [SECONDS]: every GPU test of the suite (ctest -R gpu, after device_build), its
# log in $OUT/gpu_tests.log, its summary printed; at most $TEST_S seconds, else SECONDS (330).
device_gpu_tests() {
  timeout "${TEST_S:-${1:-330}}" ctest --test-dir build/device -R gpu -j8 --output-on-failure > "$OUT/gpu_tests.log" 2>&1
  echo "ctest: rc=$?"
  grep -E "tests passed|tests failed|Failed|\*\*\*|Timeout" "$OUT/gpu_tests.log" | head -20
}

# device_build_old OLD_TREE: the Release build of `tessel` in another checkout (an export of an
# earlier commit, carried to the device), its log in $OUT/build_old.log; exits the script on failure.
device_build_old() {
  (cd "$1" && cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build_old.log" 2>&1 &&
    cmake --build build/device -j"$(nproc)" --target tessel >> "$OUT/build_old.log" 2>&1) ||
    { tail -20 "$OUT/build_old.log"; echo "old build failed"; exit 1; }
}

# device_alternate "OLD_TREE [TREE...]" ROUNDS SEED PROBLEM...: the one call beside cuBLAS on each
# problem (`tessel bench gemm ... --one-call --iters 20 --warmup 5`), this tree's build then each
# other tree's, ROUNDS rounds; a line each, prefixed "new round R: ", then "old round R: " (one
# other tree) or the tree's folder name (several).
device_alternate() {
  local others=($1) rounds="$2" seed="$3"
  shift 3
  for round in $(seq "$rounds"); do
    for p in "$@"; do
      for t in . "${others[@]}"; do
        local label=new
        [ "$t" != . ] && label=$([ ${#others[@]} = 1 ] && echo old || basename "$t")
        printf "%s round %s: " "$label" "$round"
        timeout 60 "$t/build/device/bin/tessel" bench gemm $p --one-call --iters 20 --warmup 5 --seed "$seed" 2>&1 |
          grep -E "^[0-9]" | tr -s ' '
      done
    done
  done
}
