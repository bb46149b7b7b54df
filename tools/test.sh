#!/usr/bin/env bash
# The whole test suite: set up, configure and build everything (preset "default", all cores),
# then run every CTest test. Exits non-zero on any failure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/setup.sh

jobs=$(nproc 2>/dev/null || echo 2)

cmake --preset default
cmake --build --preset default --parallel "$jobs"
ctest --preset default --output-on-failure --parallel "$jobs"
