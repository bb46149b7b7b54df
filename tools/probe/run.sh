#!/usr/bin/env bash
# run.sh (probe): how many clusters of each kernel in k.txt (name, cluster size, threads, dynamic
# shared bytes) the GPU holds at once. The PTX files are `tessel dump NAME` (made here with
# TESSEL=path/to/tessel, or copied in beforehand). Output in $OUT/clusters.txt.
set -e
cd "$(dirname "$0")"
if [ -n "${TESSEL:-}" ]; then while read -r n _; do "$TESSEL" dump "$n" > "$n.ptx"; done < k.txt; fi
nvcc -O1 clusters.cu -o /tmp/clusters -lcuda
/tmp/clusters k.txt . 2>&1 | tee "${OUT:-.}/clusters.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee -a "${OUT:-.}/clusters.txt"
