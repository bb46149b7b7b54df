#!/usr/bin/env bash
# device_python.sh: the Python module on the device machine (issue 22): builds it against the
# machine's python3 (PyTorch's), runs tests/python (the GPU tests against torch included) with
# Python's fault handler, and, when a test crashes, the same tests under AddressSanitizer (a second
# build) so that the native stack of the crash is in the log; then tools/bench/python_bench.py (BENCH=0
# skips it). Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
PY=$(command -v python3)
PYBIND=$($PY -c "import pybind11; print(pybind11.get_cmake_dir())")
$PY -c "import sys, numpy, torch, pybind11; print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'torch', torch.__version__, 'pybind11', pybind11.__version__)" 2>&1 |
  tee -a "$OUT/device.txt"
configure() {  # configure BUILD_DIR [extra cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DTESSEL_PYTHON=ON -DPython_EXECUTABLE="$PY" -Dpybind11_DIR="$PYBIND" "$@"
}
configure build/py -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$OUT/build.log" 2>&1 &&
  cmake --build build/py -j"$(nproc)" --target tessel_python >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
run_tests() {  # run_tests BUILD_DIR LOG [env...]
  local dir=$1 log=$2; shift 2
  env PYTHONPATH="$dir/python" PYTHONDONTWRITEBYTECODE=1 "$@" timeout 240 $PY -X faulthandler -m pytest -q -rs \
    -p no:cacheprovider tests/python > "$log" 2>&1
}
run_tests build/py "$OUT/pytest.log"
rc=$?
tail -25 "$OUT/pytest.log"
if [[ ${BENCH:-1} != 0 ]]; then
  PYTHONPATH=build/py/python timeout 200 $PY tools/bench/python_bench.py 2>&1 | tee "$OUT/bench_python.md"
  PYTHONPATH=build/py/python timeout 60 $PY tools/bench/python_bench.py --host 2>&1 | tee "$OUT/bench_python_host.md"
fi
if [[ $rc -ne 0 ]] && grep -qE "Fatal Python error|Segmentation|core dumped" "$OUT/pytest.log"; then
  echo "== crash: the same under AddressSanitizer"
  configure build/py-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-fsanitize=address -fno-omit-frame-pointer" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address" -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address" \
    > "$OUT/build-asan.log" 2>&1 &&
    cmake --build build/py-asan -j"$(nproc)" --target tessel_python >> "$OUT/build-asan.log" 2>&1 ||
    { tail -30 "$OUT/build-asan.log"; exit 1; }
  run_tests build/py-asan "$OUT/pytest-asan.log" LD_PRELOAD="$(g++ -print-file-name=libasan.so)" \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
  grep -nE "ERROR: AddressSanitizer|#[0-9]+ 0x|SUMMARY" "$OUT/pytest-asan.log" | head -60
fi
exit $rc
