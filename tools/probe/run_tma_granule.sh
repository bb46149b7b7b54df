#!/usr/bin/env bash
# run_tma_granule.sh (probe): tma_granule.cu's cases, one process each: TMA loads and stores of a
# bf16-sized box at inner coordinates 0, 8 (16 bytes), 3 and 4 (6 and 8 bytes into a granule), and
# -8 and -3 (row 0), and with the row coordinate negative or past the end. Output in
# $OUT/tma_granule.txt.
cd "$(dirname "$0")"
nvcc -O1 -arch=sm_90a tma_granule.cu -o /tmp/tma_granule -lcuda || exit 1
for op in load store; do
  for xy in "0 0" "8 0" "3 0" "4 0" "-8 0" "-3 0" "0 -2" "8 -8" "56 60" "0 60" "48 0"; do timeout 30 /tmp/tma_granule $op $xy; done
done | tee "${OUT:-.}/tma_granule.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "${OUT:-.}/tma_granule.txt"
