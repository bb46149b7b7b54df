#!/usr/bin/env bash
# What CI runs (.ci/run), in four steps; exits non-zero if any step fails (every step runs):
#   suite       set up, configure and build everything (preset "default", all cores), run every
#               CTest test; with the Python module (TESSEL_PYTHON=ON, Debian's python3, its pytest
#               tests under CTest: about a minute more) unless TESSEL_TEST_PYTHON=0;
#   llvm        set up LLVM 22 (llvm-22-dev, llvm-22-linker-tools), build tessel_llvm_tests
#               with codegen_llvm (preset "llvm"), run the tests labelled llvm (docs/llvm.md);
#   sanitizers  tools/sanitize.sh: the CPU tests under AddressSanitizer and UBSan (preset "asan");
#   fuzz        tools/fuzz.sh: each libFuzzer target for TESSEL_FUZZ_SECONDS (default 60) seconds.
# TESSEL_TEST_STEPS picks steps, e.g. TESSEL_TEST_STEPS=suite for the plain suite alone.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

steps=${TESSEL_TEST_STEPS:-suite llvm sanitizers fuzz}
jobs=$(nproc 2>/dev/null || echo 2)

# Each step is one && chain: `set -e` does not apply inside `step || status=$?` below.
# The Python module's requirements (PACKAGE: with no command: Debian packages of headers and modules).
python_requirements=(pybind11-dev: libdlpack-dev: python3-dev: python3-numpy: python3-pytest:)
python_options=(-DTESSEL_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3)
if [[ ${TESSEL_TEST_PYTHON:-1} == 0 ]]; then
  python_requirements=()
  python_options=(-DTESSEL_PYTHON=OFF)
fi

suite() {
  bash tools/setup.sh "${python_requirements[@]}" &&
    cmake --preset default "${python_options[@]}" &&
    cmake --build --preset default --parallel "$jobs" &&
    ctest --preset default --output-on-failure --parallel "$jobs"
}
llvm() {
  bash tools/setup.sh llvm-22-dev: llvm-22-linker-tools: &&
    cmake --preset llvm &&
    cmake --build --preset llvm --parallel "$jobs" &&
    ctest --preset llvm --output-on-failure --parallel "$jobs"
}
sanitizers() { bash tools/sanitize.sh; }
fuzz() { bash tools/fuzz.sh "${TESSEL_FUZZ_SECONDS:-60}"; }

failed=()
for step in $steps; do
  case "$step" in
    suite | llvm | sanitizers | fuzz) ;;
    *)
      echo "test.sh: unknown step '$step' in TESSEL_TEST_STEPS (steps: suite llvm sanitizers fuzz)" >&2
      exit 2
      ;;
  esac
  echo "== test.sh: $step"
  start=$SECONDS
  status=0
  "$step" || status=$?
  echo "== test.sh: $step $( ((status == 0)) && echo ok || echo "FAILED (exit $status)") in $((SECONDS - start)) s"
  ((status == 0)) || failed+=("$step")
done

if ((${#failed[@]} > 0)); then
  echo "test.sh: failed: ${failed[*]}" >&2
  exit 1
fi
