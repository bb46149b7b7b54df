#!/usr/bin/env python3
"""fit_gemm_model.py: fits the one-call GEMM cost model's constants (kernels/src/gemm/ranking.cpp)
to the timings that tools/device_calibrate.sh records, and reports how far the model's pick lands
from the fastest timed candidate ("regret").

    python3 tools/bench/fit_gemm_model.py CALIBRATE.TXT [--validate OTHER.TXT] [--iters N]

CALIBRATE.TXT is a device_calibrate.sh `calibrate.txt` (the tables of `tessel tune`). The model
below mirrors estimate_gemm_us in ranking.cpp term for term, and rank_gemm's near-tie rule
(pick_of); keep them in step. Each run's device (its DRAM bandwidth) comes from the file's device
lines. The fit
minimises, per problem, the mean squared log error of the candidates within 1.6x of the fastest
plus half the log of the pick's regret, by Nelder-Mead in log parameter space (numpy only). tf32
and fp8 efficiencies are then tied to the 16-bit table (tf32: a e^b, fp8: a e), since few
problems of theirs are in the list. Prints the constants to copy into ranking.cpp and the regret
on each list. A fit of every parameter takes half an hour or more on a 2-core machine.
"""
import argparse
import math
import re
import sys

import numpy as np

SMS = 132
SPLIT_K_MARGIN = 0.98  # kSplitKMargin: not fitted (chosen on both lists' regrets, docs/performance.md);
# the regrets here take every timed split count as a candidate (ranking.cpp's count tie is not mirrored)
TRANSPOSE_FACTOR = 1.5  # kTransposeCopyFactor: not fitted (too few transposes in the data)
MISALIGNED_L2 = 2.5  # kMisalignedL2: the time of one ncu-measured row, not fitted
CLUSTER_US = 0.8  # kClusterUs: the median clustered-minus-twin time of small calibration rows, not fitted
BYTES = {"bf16": 2, "f16": 2, "f32": 4, "e4m3": 1, "e5m2": 1}
PEAK = {"bf16": 989e12, "f16": 989e12, "f32": 495e12, "e4m3": 1979e12, "e5m2": 1979e12}
KERNEL = re.compile(r"tessel_hopper_gemm_(\w+?)_(\w+?)_(\d+)x(\d+)x(\d+)_s(\d+)_([km])([kn])([rc])(_pp)?(_c\dx\d)?(_sk)?(_swap)?$")
# A device's DRAM bandwidth in bytes per us, where the calibration file's device line does not say
# it ("..., 79.2 GiB at 3.35 TB/s"): the runs before session 44 were on H100 SXMs (2619 MHz, 5120 bits)
DRAM_PEAK = {"H200": 4.8145e6, "H100": 3.3523e6}
ROW = re.compile(r"\s+(split \d+|\d+)\s+(tessel_\S+)(.*?)\s+([\d.]+|-)\s+([\d.]+|-)\s*$")


def parse(path):
    """The problems of a calibrate.txt: [{'args': str, 'cands': [{rank, name, packed, splits, ms}]}]."""
    problems, cur = [], None
    for line in open(path):
        if line.startswith("== tessel tune "):
            cur = {"args": line[len("== tessel tune "):].strip(), "cands": [], "dram_peak": DRAM_PEAK["H100"]}
            problems.append(cur)
            continue
        if line.startswith("device: ") and cur is not None:
            tbs = re.search(r"([\d.]+) TB/s", line)
            cur["dram_peak"] = float(tbs.group(1)) * 1e6 if tbs else DRAM_PEAK["H200" if "H200" in line else "H100"]
            continue
        m = ROW.match(line)
        if m and cur is not None and m.group(4) != "-":
            packed = re.search(r"through the workspace: ([A-Za-z, ]+)\)", m.group(3))
            splits = re.search(r"split-K x (\d+)", m.group(3))
            cur["cands"].append({"rank": m.group(1), "name": m.group(2), "packed": packed.group(1) if packed else "",
                                 "splits": int(splits.group(1)) if splits else 1, "ms": float(m.group(4))})
    return [p for p in problems if p["cands"]]


def problem_of(args, dram_peak):
    a = args.split()
    d = {a[i][2:]: a[i + 1] for i in range(0, len(a), 2)}
    dt = d.get("dtype", "bf16")
    return {"M": int(d["m"]), "N": int(d["n"]), "K": int(d["k"]), "L": int(d.get("l", 1)), "dtype": dt,
            "out": d.get("out", "bf16" if dt in ("e4m3", "e5m2") else dt), "am": d.get("a-major", "k"),
            "bm": d.get("b-major", "n"), "om": d.get("out-major", "n"), "beta": float(d.get("beta", 0)) != 0,
            "dram_peak": dram_peak}


def kernel_of(name):
    m = KERNEL.match(name)
    if not m:
        return None  # a CUDA-core kernel: not modelled here
    ab, _, tm, tn, tk, st, am, bm, om, pp, cl, sk, swap = m.groups()
    cls = "tf32" if ab == "f32" else ("fp8" if ab in ("e4m3", "e5m2") else "16")
    return {"cls": cls, "tm": int(tm), "tn": int(tn), "tk": int(tk), "pp": bool(pp), "cluster": cl[1:] if cl else "",
            "am": am, "bm": bm, "om": om, "key": None if swap else (cls, int(tm), int(tn), bool(pp)), "swap": bool(swap),
            # the kernel computes out^T = B^T A^T (runs_transposed): its tile spans N, then M
            "transposed": (om == "c") != bool(swap)}


class Model:
    SCALARS = [("swap", 0.8), ("gain", 0.15), ("epilogue", 2e4), ("pingpong_epilogue", 0.3), ("fill", 1.0), ("launch", 3.0),
               ("copy", 2.5e6), ("dram_per_sm", 3e4), ("dram", 0.8), ("partial", 1e5), ("round", 0.5),
               ("l2", 1e7)]

    def __init__(self, rows):
        self.keys = sorted({k["key"] for _, k, *_ in rows if k["key"]})
        self.names = [("eff",) + key for key in self.keys] + [(n,) for n, _ in self.SCALARS]
        self.init = np.array([0.75] * len(self.keys) + [v for _, v in self.SCALARS])
        self.idx = {n: i for i, n in enumerate(self.names)}

    def estimate(self, x, p, k, packed, splits, with_l2=False):
        """The model's time in us; with_l2: (time, the L2 floor of the mainloop), as the tie rule asks."""
        v = lambda n: x[self.idx[(n,)]]
        if k["swap"]:
            # swapped tiles: one scale times the shared-memory bound of an m64nN wgmma (kSwapScale),
            # at most the unswapped 64x128 tile's (kSwapCap)
            cap = x[self.idx[("eff", "16", 64, 128, False)]] if ("eff", "16", 64, 128, False) in self.idx else 0.65
            eff = min(cap, v("swap") * min(1.0, (k["tn"] / 2) / (16 + k["tn"] / 4)))
        elif ("eff",) + k["key"] in self.idx:
            eff = x[self.idx[("eff",) + k["key"]]]
        else:  # a tile the calibration never timed: its 16-bit twin, or ranking.cpp's area fallback
            twin = ("eff", "16") + k["key"][1:]
            area = k["tm"] * k["tn"]
            eff = x[self.idx[twin]] if twin in self.idx else min(0.87, max(0.3, 0.87 - 0.09 * math.log2(32768 / area)))
        rate = PEAK[p["dtype"]] / SMS * 1e-6 * eff
        rows, cols = (p["N"], p["M"]) if k["transposed"] else (p["M"], p["N"])
        tiles = -(-rows // k["tm"]) * -(-cols // k["tn"]) * p["L"]
        ktiles = max(1, -(-p["K"] // k["tk"]))
        units = tiles * splits
        rounds = -(-units // SMS)
        last = units - (rounds - 1) * SMS
        mainloop = -(-ktiles // splits) * 2.0 * k["tm"] * k["tn"] * k["tk"] / rate
        # ping-pong: what the other warpgroup's mainloop does not hide, at least kPingpongEpilogue of it
        full = k["tm"] * k["tn"] * BYTES[p["out"]] * (2 if p["beta"] else 1) / v("epilogue")
        epilogue = max(v("pingpong_epilogue") * full, full - mainloop) if k["pp"] else 0.5 * full
        compute = ((rounds - 1) * (mainloop + epilogue) + mainloop * (1 - v("gain") * (1 - last / SMS)) + epilogue +
                   rounds * v("round") + v("fill"))
        if splits > 1:
            partial = k["tm"] * k["tn"] * 4 / v("partial")
            compute += rounds * partial + -(-tiles // SMS) * splits * partial
        ab, ob = BYTES[p["dtype"]], BYTES[p["out"]]
        # every unit's operand tiles through L2 into shared memory: the device's L2 bandwidth bounds
        # the mainloop when tiles are small and many (kL2BytesPerUs)
        # (kL2BytesPerUs); in a cluster the operand it multicasts once per cluster; a K-major operand
        # whose rows lie an odd multiple of 16 bytes apart costs kMisalignedL2 (packed ones are aligned)
        cm, cn = (int(k["cluster"][1]), int(k["cluster"][3])) if k["cluster"] else (1, 1)
        ops = [o.strip() for o in packed.split(",")] if packed else []
        cost = {op: MISALIGNED_L2 if p[op.lower() + "m"] == "k" and op not in ops and p["K"] * ab % 32 == 16 else 1.0
                for op in ("A", "B")}
        if k["transposed"]:  # out^T = B^T A^T: the kernel's A is B; its cluster dimensions swap
            cost = {"A": cost["B"], "B": cost["A"]}
            cm, cn = cn, cm
        l2_rows = k["tm"] * cost["A"] / cn + k["tn"] * cost["B"] / cm
        l2 = tiles * l2_rows * p["K"] * ab / v("l2")
        compute = max(compute, l2 + v("fill"))
        moved = (p["M"] * p["K"] + p["K"] * p["N"]) * p["L"] * ab + p["M"] * p["N"] * p["L"] * ob * (2 if p["beta"] else 1)
        # a last round of fewer units streams its share of the bytes at what its CTAs reach
        rate = lambda ctas: min(v("dram") * p["dram_peak"], ctas * v("dram_per_sm"))
        tail = last / units if rounds > 1 else 0.0
        dram = moved * (1 - tail) / rate(min(units, SMS)) + moved * tail / rate(last)
        t = max(compute, dram) + 0.1 * min(compute, dram) + v("launch") + (CLUSTER_US if k["cluster"] else 0.0)
        if packed:
            copied = transposed = 0
            ops = [o.strip() for o in packed.split(",")]
            for op in ops:
                if op == "A":
                    b, same = p["M"] * p["K"] * p["L"] * ab, p["am"] == k["am"]
                elif op == "B":
                    b, same = p["K"] * p["N"] * p["L"] * ab, p["bm"] == k["bm"]
                else:  # C or out
                    b, same = p["M"] * p["N"] * p["L"] * ob, (p["om"] == "n") == (k["om"] == "r")
                copied += b
                transposed += 0 if same else b
            t += (copied + (TRANSPOSE_FACTOR - 1) * transposed) * 2 / v("copy") + v("launch") * len(ops)
        return (t, l2) if with_l2 else t


# ranking.cpp's names of the scalars, to read the committed constants (--evaluate)
CPP_NAMES = {"swap": "kSwapScale", "gain": "kPartialRoundGain", "epilogue": "kEpilogueBytesPerUsPerSm",
             "pingpong_epilogue": "kPingpongEpilogue", "fill": "kFirstFillUs", "launch": "kLaunchUs",
             "copy": "kCopyBytesPerUs", "dram_per_sm": "kDramBytesPerUsPerSm", "dram": "kDramShare",
             "partial": "kPartialBytesPerUsPerSm", "round": "kUnitUs", "l2": "kL2BytesPerUs"}


def committed(model, path):
    """The constants of ranking.cpp at `path` as the model's parameter vector (tf32 and fp8 tied as there)."""
    src = open(path).read()
    def num(name):
        m = re.search(name + r" = ([\d.e+-]+)", src)
        return float(m.group(1)) if m else float("inf")  # a term that ranking.cpp has not got: no bound
    fits = {(int(a), int(b), c == "true"): float(e) for a, b, c, e in
            re.findall(r"\{(\d+), (\d+), (true|false), ([\d.]+)\}", src)}
    x = model.init.copy()
    for i, n in enumerate(model.names):
        if n[0] != "eff":
            x[i] = num(CPP_NAMES[n[0]])
            continue
        e = fits.get(n[2:], 0.75)
        if n[1] == "tf32":
            e = min(0.9, num("kTf32Scale") * e ** num("kTf32Power"))
        elif n[1] == "fp8":
            e = min(0.95, num("kFp8Scale") * e)
        x[i] = e
    return x


def rows_of(problems):
    rows = []
    for p in problems:
        pr = problem_of(p["args"], p["dram_peak"])
        for c in p["cands"]:
            k = kernel_of(c["name"])
            if k:
                rows.append((pr, k, c["packed"], c["splits"], c["ms"] * 1000, p["args"]))
    return rows


def scored(model, x, cands):
    """[(estimate, L2 floor, candidate)] of cands [(problem, kernel, packed, splits, us)]."""
    return [model.estimate(x, c[0], c[1], c[2], c[3], with_l2=True) + (c,) for c in cands]


def pick_of(scores):
    """The candidate ranking.cpp picks among scored ones: the least estimate (split-K's over
    kSplitKMargin), then its near-tie rule (within 0.5%): up to 128 rows of out a swapped kernel
    over an unswapped one and the smaller of two swapped tiles; otherwise the larger tile, then no
    cluster, then the lower L2 floor."""
    keyed = sorted(((t / (SPLIT_K_MARGIN if c[3] > 1 else 1), l2, c) for t, l2, c in scores), key=lambda e: e[0])
    few_rows = keyed[0][2][0]["M"] <= 128
    area = lambda k: k["tm"] * k["tn"]
    pick = keyed[0]
    for e in keyed[1:]:
        if e[0] > keyed[0][0] * 1.005:
            break
        c, p = e[2][1], pick[2][1]
        if c["swap"] and p["swap"]:
            better = area(c) < area(p) if few_rows else area(c) > area(p)
        elif c["swap"] != p["swap"] and few_rows:
            better = c["swap"]
        elif area(c) != area(p):
            better = area(c) > area(p)
        elif bool(c["cluster"]) != bool(p["cluster"]):
            better = not c["cluster"]
        else:
            better = e[1] < pick[1]
        if better:
            pick = e
    return pick[2]


def by_problem(rows):
    by = {}
    for pr, k, packed, splits, us, args in rows:
        by.setdefault(args, []).append((pr, k, packed, splits, us))
    return by


def regrets(model, x, rows, split_allowed=False):
    out = {}
    for args, v in by_problem(rows).items():
        best = min(c[4] for c in v)
        out[args] = pick_of(scored(model, x, [c for c in v if split_allowed or c[3] == 1]))[4] / best
    return out


def loss(model, x, rows):
    total, by = 0.0, by_problem(rows)
    for v in by.values():
        best = min(c[4] for c in v)
        scores = scored(model, x, v)
        err = np.array([math.log(t) - math.log(c[4]) for t, _, c in scores if c[4] <= 1.6 * best])
        total += float(np.mean(err ** 2)) + 0.5 * math.log(pick_of(scores)[4] / best)
    return total / len(by)


def nelder_mead(f, x0, iters, scale=0.2):
    n = len(x0)
    simplex = [np.log(x0)] + [np.log(x0) + scale * np.eye(n)[i] for i in range(n)]
    values = [f(np.exp(s)) for s in simplex]
    for _ in range(iters):
        order = np.argsort(values)
        simplex, values = [simplex[i] for i in order], [values[i] for i in order]
        centre = np.mean(simplex[:-1], axis=0)
        xr = centre + (centre - simplex[-1])
        fr = f(np.exp(xr))
        if fr < values[0]:
            xe = centre + 2 * (centre - simplex[-1])
            fe = f(np.exp(xe))
            simplex[-1], values[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = xr, fr
        else:
            xc = centre + 0.5 * (simplex[-1] - centre)
            fc = f(np.exp(xc))
            if fc < values[-1]:
                simplex[-1], values[-1] = xc, fc
            else:
                simplex = [simplex[0]] + [simplex[0] + 0.5 * (s - simplex[0]) for s in simplex[1:]]
                values = [values[0]] + [f(np.exp(s)) for s in simplex[1:]]
    i = int(np.argmin(values))
    return np.exp(simplex[i])


def tie(model, x, rows, cls, exponents):
    """Replaces class `cls`'s efficiencies by a * e16^b (b from `exponents`), fitted on its rows."""
    sel = [r for r in rows if r[1]["cls"] == cls]
    if not sel:
        return x, None
    best = None
    for a in np.arange(0.5, 1.6, 0.02):
        for b in exponents:
            y = x.copy()
            for i, n in enumerate(model.names):
                if n[0] == "eff" and n[1] == cls and ("eff", "16") + n[2:] in model.idx:
                    y[i] = min(0.95, a * x[model.idx[("eff", "16") + n[2:]]] ** b)
            score = loss(model, y, sel)
            if best is None or score < best[0]:
                best = (score, a, b, y)
    return best[3], (best[1], best[2])


def summary(name, r, show=None):
    v = list(r.values())
    if show:
        for args, t in sorted(r.items(), key=lambda a: -a[1]):
            if t >= show:
                print(f"  {t:.3f}  {args}")
    gm = math.exp(sum(map(math.log, v)) / len(v))
    return f"{name}: {len(v)} problems, regret geometric mean {gm:.3f}, max {max(v):.2f}, rows > 1.05: {sum(1 for t in v if t > 1.05)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("calibrate")
    ap.add_argument("--validate")
    ap.add_argument("--iters", type=int, default=2500)
    ap.add_argument("--evaluate", metavar="RANKING_CPP", help="no fit: the regrets of the constants in this ranking.cpp")
    ap.add_argument("--show", type=float, metavar="R", help="also list each problem whose pick is R times the fastest or more")
    o = ap.parse_args()
    rows = rows_of(parse(o.calibrate))
    if not rows:
        sys.exit(f"{o.calibrate}: no `tessel tune` tables")
    model = Model(rows)
    if o.evaluate:
        x, tf32, fp8 = committed(model, o.evaluate), None, None
    else:
        x = model.init
        for _ in range(3):
            x = nelder_mead(lambda v: loss(model, v, rows), x, o.iters)
        x, tf32 = tie(model, x, rows, "tf32", [1, 1.5, 2, 2.5, 3, 4])
        x, fp8 = tie(model, x, rows, "fp8", [1])
    for n, v in zip(model.names, x):
        if n[0] == "eff" and n[1] == "16":
            print(f"    {{{n[2]}, {n[3]}, {'true' if n[4] else 'false'}, {v:.3f}}},")
    if tf32:
        print(f"tf32: {tf32[0]:.2f} e^{tf32[1]:g}")
    if fp8:
        print(f"fp8: {fp8[0]:.2f} e")
    for n, v in zip(model.names, x):
        if n[0] != "eff":
            print(f"{n[0]}: {v:.4g}")
    for allowed in (False, True):
        which = "split-K allowed" if allowed else "data-parallel only"
        print(summary(f"{o.calibrate} ({which})", regrets(model, x, rows, allowed), o.show))
        if o.validate:
            print(summary(f"{o.validate} ({which})", regrets(model, x, rows_of(parse(o.validate)), allowed), o.show))


if __name__ == "__main__":
    main()
