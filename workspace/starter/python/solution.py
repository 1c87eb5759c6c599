#!/usr/bin/env python3
"""TransitBench starter solution: a box least squares (BLS) search that reports the strongest peak when its
signal-to-noise ratio is at least 8 and its depth at most 3 %.

Usage: solution.py STAR_DIR. Reads STAR_DIR/lightcurve.csv (time,flux,flux_err,quality) and prints
`period_days,t0_days,score` rows on stdout. Needs numpy only; improve it, or replace it with your own pipeline.
"""
import os
import sys

import numpy as np

QUALITY_MASK = 1 | 2 | 4 | 8 | 32 | 256 | 16384 | 65536 | 1048576  # lightkurve's default bitmask
WINDOW_DAYS = 1.0        # running-median detrending window
MIN_PERIOD_DAYS = 0.5
OVERSAMPLE = 2.0         # period grid: midtime drift over the span <= duration / OVERSAMPLE
SNR_THRESHOLD = 8.0
MAX_DEPTH = 0.03
DURATIONS = np.array([0.04, 0.06, 0.08, 0.12, 0.16, 0.22, 0.3, 0.4])  # days


def read_light_curve(path):
    d = np.genfromtxt(path, delimiter=",", names=True, dtype=float)
    t, f, e, q = d["time"], d["flux"], d["flux_err"], d["quality"].astype(np.int64)
    ok = np.isfinite(t) & np.isfinite(f) & ((q & QUALITY_MASK) == 0)
    t, f, e = t[ok], f[ok], e[ok]
    order = np.argsort(t, kind="stable")
    t, f, e = t[order], f[order], e[order]
    bad = ~(np.isfinite(e) & (e > 0))
    if bad.any():
        e[bad] = 1.4826 * np.median(np.abs(np.diff(f))) / np.sqrt(2)
    return t, f, e


def detrend(t, f, w):
    """Divide by the running median over a window of w days."""
    lo = np.searchsorted(t, t - w / 2, side="left")
    hi = np.searchsorted(t, t + w / 2, side="right")
    trend = np.array([np.median(f[a:b]) for a, b in zip(lo, hi)])
    return f / trend


def shortest_duration(p):
    """Half the central-transit duration of an Earth-like orbit scaled to period p (days)."""
    return max(DURATIONS[0], 0.5 * 0.54 * (p / 365.25) ** (1 / 3))


def search(t, y, dy):
    """BLS with the snr objective (depth / its 1-sigma uncertainty, as astropy's BoxLeastSquares)."""
    span = t[-1] - t[0]
    w = 1 / dy**2
    sw = w.sum()
    wy = w * (y - np.sum(w * y) / sw)
    tt = t - t[0]
    best = (0.0, None)
    p = MIN_PERIOD_DAYS
    while p <= span / 3:
        dmin = shortest_duration(p)
        nb = int(np.ceil(p / (dmin / 4)))
        ph = tt / p
        k = ((ph - np.floor(ph)) * nb).astype(np.int64)
        np.minimum(k, nb - 1, out=k)
        bw = np.bincount(k, weights=w, minlength=nb)
        by = np.bincount(k, weights=wy, minlength=nb)
        cw = np.concatenate(([0.0], np.cumsum(np.concatenate((bw, bw)))))
        cy = np.concatenate(([0.0], np.cumsum(np.concatenate((by, by)))))
        for d in DURATIONS:
            if d > 0.25 * p:
                break
            if d < 0.7 * dmin:
                continue
            m = max(1, int(round(d / (p / nb))))
            win = cw[m:m + nb] - cw[:nb]
            wyin = cy[m:m + nb] - cy[:nb]
            good = (win > 0) & (win < sw)
            with np.errstate(divide="ignore", invalid="ignore"):
                depth = np.where(good, (-wyin / (sw - win)) - (wyin / win), 0.0)
                snr = np.where(depth > 0, depth * np.sqrt(win * (sw - win) / sw), 0.0)
            s = int(np.argmax(snr))
            if snr[s] > best[0]:
                t0 = t[0] + (s + m / 2) * p / nb
                best = (float(snr[s]), (p, t0, d, float(depth[s])))
        p *= 1 + dmin / (OVERSAMPLE * span)
    return best


def main():
    if len(sys.argv) != 2:
        print("usage: solution.py STAR_DIR", file=sys.stderr)
        sys.exit(2)
    t, f, e = read_light_curve(os.path.join(sys.argv[1], "lightcurve.csv"))
    print("period_days,t0_days,score")
    if t.size < 100:
        print("too few valid cadences, no candidate", file=sys.stderr)
        return
    y = detrend(t, f, WINDOW_DAYS)
    r = y - 1
    sigma = 1.4826 * np.median(np.abs(r))
    y[r > 5 * sigma] = 1.0  # transits are dips: clip upward outliers
    snr, peak = search(t, y, e)
    if peak is None:
        return
    p, t0, d, depth = peak
    t0 = (t0 - t[0]) % p + t[0]
    print(f"best peak: P={p:.5f} d t0={t0:.4f} D={d:.3f} d depth={depth*1e6:.1f} ppm snr={snr:.2f}", file=sys.stderr)
    if snr >= SNR_THRESHOLD and depth <= MAX_DEPTH:
        print(f"{p:.6f},{t0:.6f},{snr:.3f}")


if __name__ == "__main__":
    main()
