#!/usr/bin/env python3
"""Stargazer RV starter: a generalised Lomb-Scargle periodogram of the offset-corrected velocities, and one
circular planet at its highest peak.

Usage: solution.py TASK_DIR. Reads TASK_DIR/task.json (what `transitbench rv show TASK --json` prints: times_days,
rvs_ms, sigmas_ms, instruments, M_star_sun, t_ref_days) and prints the planets on stdout as JSON, the format
`transitbench rv submit --planets` accepts. Standard library only, so it runs under any python3; improve it
(more planets, eccentric orbits, aliases, a jitter term) or replace it with your own pipeline.
"""
import json
import math
import os
import sys

MIN_PERIOD_DAYS = 1.0
OVERSAMPLING = 5        # frequency step = 1 / (OVERSAMPLING * span)
MAX_FREQUENCIES = 20000  # keeps long real baselines within the time limit


def remove_offsets(t, y, w, inst):
    """Subtract the weighted mean velocity of each instrument (weights 1/sigma^2)."""
    sums = {}
    for yi, wi, k in zip(y, w, inst):
        s = sums.setdefault(k, [0.0, 0.0])
        s[0] += wi * yi
        s[1] += wi
    return [yi - sums[k][0] / sums[k][1] for yi, k in zip(y, inst)]


def sinusoid_fit(t, y, w, freq, t_ref):
    """Weighted least squares of y = a cos(x) + b sin(x) + c, x = 2 pi freq (t - t_ref).

    Returns (a, b, c, chi2)."""
    sww = swc = sws = swcc = swss = swcs = swy = swyc = swys = 0.0
    for ti, yi, wi in zip(t, y, w):
        x = 2.0 * math.pi * freq * (ti - t_ref)
        c, s = math.cos(x), math.sin(x)
        sww += wi
        swc += wi * c
        sws += wi * s
        swcc += wi * c * c
        swss += wi * s * s
        swcs += wi * c * s
        swy += wi * yi
        swyc += wi * yi * c
        swys += wi * yi * s
    m = [[swcc, swcs, swc], [swcs, swss, sws], [swc, sws, sww]]
    v = [swyc, swys, swy]
    sol = solve3(m, v)
    if sol is None:
        return 0.0, 0.0, 0.0, float("inf")
    a, b, c = sol
    chi2 = 0.0
    for ti, yi, wi in zip(t, y, w):
        x = 2.0 * math.pi * freq * (ti - t_ref)
        r = yi - a * math.cos(x) - b * math.sin(x) - c
        chi2 += wi * r * r
    return a, b, c, chi2


def solve3(m, v):
    """Solve the 3x3 system m x = v by Cramer's rule; None when it is singular."""
    def det(a):
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
                - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    d = det(m)
    if abs(d) < 1e-300:
        return None
    out = []
    for col in range(3):
        mc = [row[:] for row in m]
        for r in range(3):
            mc[r][col] = v[r]
        out.append(det(mc) / d)
    return out


def periodogram_peak(t, y, w, t_ref):
    """Frequency of the lowest chi^2 of a floating-mean sinusoid over a uniform frequency grid."""
    span = max(t) - min(t)
    fmin = 1.0 / (2.0 * span)
    fmax = 1.0 / MIN_PERIOD_DAYS
    df = max(1.0 / (OVERSAMPLING * span), (fmax - fmin) / MAX_FREQUENCIES)
    best_f, best_chi2 = fmin, float("inf")
    xs = [2.0 * math.pi * (ti - t_ref) for ti in t]
    f = fmin
    while f <= fmax:
        chi2 = sinusoid_fit_fast(xs, y, w, f)
        if chi2 < best_chi2:
            best_f, best_chi2 = f, chi2
        f += df
    # Refine the peak on a grid ten times finer.
    lo, hi, step = best_f - df, best_f + df, df / 10.0
    f = max(lo, fmin / 2.0)
    while f <= hi:
        chi2 = sinusoid_fit_fast(xs, y, w, f)
        if chi2 < best_chi2:
            best_f, best_chi2 = f, chi2
        f += step
    return best_f


def sinusoid_fit_fast(xs, y, w, freq):
    """chi^2 of the best floating-mean sinusoid at freq, from the normal equations."""
    sww = swc = sws = swcc = swss = swcs = swy = swyc = swys = swyy = 0.0
    for x, yi, wi in zip(xs, y, w):
        c, s = math.cos(freq * x), math.sin(freq * x)
        wc, ws = wi * c, wi * s
        sww += wi
        swc += wc
        sws += ws
        swcc += wc * c
        swss += ws * s
        swcs += wc * s
        swy += wi * yi
        swyc += wc * yi
        swys += ws * yi
        swyy += wi * yi * yi
    sol = solve3([[swcc, swcs, swc], [swcs, swss, sws], [swc, sws, sww]], [swyc, swys, swy])
    if sol is None:
        return float("inf")
    a, b, c = sol
    # chi^2 at the least-squares solution: y.W.y - x.(A^T W y)
    return swyy - (a * swyc + b * swys + c * swy)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: solution.py TASK_DIR")
    with open(os.path.join(sys.argv[1], "task.json")) as f:
        task = json.load(f)
    t, y = task["times_days"], task["rvs_ms"]
    w = [1.0 / (s * s) for s in task["sigmas_ms"]]
    t_ref = task["t_ref_days"]
    y = remove_offsets(t, y, w, task["instruments"])
    freq = periodogram_peak(t, y, w, t_ref)
    a, b, _, _ = sinusoid_fit(t, y, w, freq, t_ref)
    # Circular orbit, omega = 0: v = K cos(M), M = M0 + 2 pi (t - t_ref) / P, so a = K cos M0, b = -K sin M0.
    k = math.hypot(a, b)
    m0 = math.atan2(-b, a) % (2.0 * math.pi)
    planet = {"P_days": 1.0 / freq, "K_ms": k, "e": 0.0, "omega_rad": 0.0, "M0_rad": m0}
    print(json.dumps([planet]))


if __name__ == "__main__":
    main()
