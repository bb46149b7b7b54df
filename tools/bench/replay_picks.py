#!/usr/bin/env python3
"""replay_picks.py TESSEL CAL[,CAL...]: the one-call pick of a `tessel` binary (its `gemm --explain
--cc 90 --sms 132 --dram-gbs G`, no GPU, G the run's device's) on every problem of calibration
runs (tools/device_calibrate.sh's calibrate.txt), against the times measured there: per problem
the pick and its time over the fastest timed candidate ("nan" where the pick was not timed), then
the geometric mean, the maximum and the rows over 1.05. Two binaries replayed on the same runs
compare two models' picks, tie rules included, with no device time (fit_gemm_model.py --evaluate
mirrors the estimates and the near-tie rule, not every term: a cluster's padded grid)."""
import math
import re
import subprocess
import sys

# GB/s of a run's device where its device line does not say it (before session 44: H100 SXMs)
DRAM_GBS = {"H200": 4815, "H100": 3352}
ROW = re.compile(r"\s+(\d+|split \d+|stream \d+)\s+(tessel_\S+)(.*?)\s+([\d.]+)\s+[\d.]+$")


def runs(path):
    problems, cur = [], None
    for line in open(path):
        if line.startswith("== tessel tune"):
            cur = {"args": line.split("tune", 1)[1].split(), "ms": {}, "gbs": DRAM_GBS["H100"]}
            problems.append(cur)
        if line.startswith("device: ") and cur is not None:
            tbs = re.search(r"([\d.]+) TB/s", line)
            cur["gbs"] = round(float(tbs.group(1)) * 1000) if tbs else DRAM_GBS["H200" if "H200" in line else "H100"]
        m = ROW.match(line)
        if m and cur is not None:
            split = re.search(r"\(split-K x \d+\)", m.group(3))
            cur["ms"][m.group(2) + (" " + split.group(0) if split else "")] = float(m.group(4))
    return [p for p in problems if p["ms"]]


def main():
    tessel, paths = sys.argv[1], sys.argv[2].split(",")
    regrets = []
    for path in paths:
        for p in runs(path):
            out = subprocess.run([tessel, "gemm", *p["args"], "--explain", "--cc", "90", "--sms", "132",
                                  "--dram-gbs", str(p["gbs"])],
                                 capture_output=True, text=True).stdout
            first = next(l.strip() for l in out.splitlines() if "about" in l)
            split = re.search(r"\(split-K x \d+\)", first)
            pick = first.split()[0].rstrip(":") + (" " + split.group(0) if split else "")
            t = p["ms"].get(pick)
            r = t / min(p["ms"].values()) if t else float("nan")
            regrets.append(r)
            print("%-60s %-62s %.3f" % (" ".join(p["args"]), pick.replace("tessel_hopper_gemm_", ""), r))
    timed = [r for r in regrets if r == r]
    print("problems %d, picks timed %d: regret geometric mean %.4f, max %.3f, rows over 1.05: %d" %
          (len(regrets), len(timed), math.exp(sum(map(math.log, timed)) / len(timed)), max(timed),
           sum(r > 1.05 for r in timed)))


if __name__ == "__main__":
    main()
