#!/usr/bin/env bash
# device_ab.sh OLD_TREE PROBLEM...: the one call on each problem (`tessel bench gemm ... --one-call`),
# alternating between this tree's build and OLD_TREE's (another checkout, e.g. a git worktree of
# an earlier commit carried to the device), three rounds; then each kernel's duration under ncu
# for both. Logs under $OUT.
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
old="$1"; shift
device_build tessel
device_build_old "$old"
device_alternate "$old" 3 40 "$@" 2>&1 | tee "$OUT/ab.txt"
for p in "$@"; do
  for t in new old; do
    b=build/device/bin/tessel; [ $t = old ] && b="$old/build/device/bin/tessel"
    echo "== $t: $p"
    timeout 150 ncu --metrics gpu__time_duration.sum --csv $b bench gemm $p --one-call --iters 2 --warmup 1 --seed 40 \
      2> /dev/null | grep gpu__time_duration | awk -F'","' '{print $5 " | " $NF}' | sed 's/"//g' | grep tessel | sort | uniq -c
  done
done 2>&1 | tee "$OUT/ab_ncu.txt"
