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
COARSE_OVERSAMPLING = 0.5  # coarse period grid: midtime drift over the span <= 2 shortest durations
COARSE_BIN = 3             # cadences averaged for the coarse search
REFINE_CANDIDATES = 10     # strongest coarse periods refined with oversampling 4
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


def bin_cadences(t, y, dy, n):
    """Average runs of up to n consecutive cadences (weights add), never across a gap: the coarse search's data."""
    bt, by, bdy = [], [], []
    i = 0
    while i < t.size:
        j = i + 1
        while j < t.size and j - i < n and t[j] - t[j - 1] < 1.5 * 0.0204336:
            j += 1
        w = 1 / dy[i:j] ** 2
        sw = w.sum()
        bt.append(np.sum(w * t[i:j]) / sw)
        by.append(np.sum(w * y[i:j]) / sw)
        bdy.append(1 / np.sqrt(sw))
        i = j
    return np.array(bt), np.array(by), np.array(bdy)


class Series:
    """A light curve prepared for folding: times from the first cadence, weights, weighted flux about the mean."""

    def __init__(self, t, y, dy):
        self.t0 = t[0]
        self.tt = t - t[0]
        self.w = 1 / dy**2
        self.sw = self.w.sum()
        self.wy = self.w * (y - np.sum(self.w * y) / self.sw)

    def scan(self, p):
        """Best box (snr objective, as astropy's BoxLeastSquares) at period p: (snr, t0, duration, depth)."""
        dmin = shortest_duration(p)
        nb = int(np.ceil(p / (dmin / 4)))
        ph = self.tt / p
        k = ((ph - np.floor(ph)) * nb).astype(np.int64)
        np.minimum(k, nb - 1, out=k)
        bw = np.bincount(k, weights=self.w, minlength=nb)
        by = np.bincount(k, weights=self.wy, minlength=nb)
        cw = np.concatenate(([0.0], np.cumsum(np.concatenate((bw, bw)))))
        cy = np.concatenate(([0.0], np.cumsum(np.concatenate((by, by)))))
        best = (0.0, 0.0, 0.0, 0.0)
        sw = self.sw
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
            j = int(np.argmax(snr))
            if snr[j] > best[0]:
                best = (float(snr[j]), self.t0 + (j + m / 2) * p / nb, d, float(depth[j]))
        return best


def step(p, span, oversampling):
    """Relative period step: the midtime drift over the span stays under the shortest duration / oversampling."""
    return shortest_duration(p) / (oversampling * span)


def search(t, y, dy):
    """Coarse to fine: a coarse pass over the light curve binned by COARSE_BIN cadences finds the strongest periods, each refined
    on the full light curve. Returns (snr, (period, t0, duration, depth)) or (0, None)."""
    span = t[-1] - t[0]
    pmax = span / 3
    coarse = Series(*bin_cadences(t, y, dy, COARSE_BIN))
    periods, snrs = [], []
    p = MIN_PERIOD_DAYS
    while p <= pmax:
        periods.append(p)
        snrs.append(coarse.scan(p)[0])
        p *= 1 + step(p, span, COARSE_OVERSAMPLING)
    snrs = np.array(snrs)
    peaks = [i for i in range(1, len(snrs) - 1) if snrs[i] >= snrs[i - 1] and snrs[i] >= snrs[i + 1]]
    peaks.sort(key=lambda i: -snrs[i])
    picked = []
    for i in peaks:
        if len(picked) == REFINE_CANDIDATES:
            break
        if all(abs(periods[i] / periods[j] - 1) >= 0.005 for j in picked):
            picked.append(i)
    fine = Series(t, y, dy)
    best = (0.0, None)
    for i in picked:
        pc = periods[i]
        s = step(pc, span, COARSE_OVERSAMPLING)
        p = pc * (1 - 2 * s)
        while p <= pc * (1 + 2 * s):
            snr, t0, d, depth = fine.scan(p)
            if snr > best[0]:
                best = (snr, (p, t0, d, depth))
            p *= 1 + step(p, span, 4)
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
