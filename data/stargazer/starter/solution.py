#!/usr/bin/env python3
"""Stargazer RV starter: a generalised Lomb-Scargle periodogram of the offset-corrected velocities, and one
Keplerian planet at its highest peak (a grid over eccentricity, argument of periastron and phase, then a local
pattern search; the amplitude and one offset per instrument are solved exactly at each step).

Usage: solution.py TASK_DIR. Reads TASK_DIR/task.json (what `transitbench rv show TASK --json` prints: times_days,
rvs_ms, sigmas_ms, instruments, M_star_sun, t_ref_days) and prints the planets on stdout as JSON, the format
`transitbench rv submit --planets` accepts. Standard library only, so it runs under any python3; improve it
(more planets, aliases, a jitter term, a proper least-squares fit) or replace it with your own pipeline.
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


def kepler_shape(t, t_ref, period, e, omega, m0):
    """Unit-amplitude Keplerian velocity cos(nu + omega) + e cos(omega), M = m0 + 2 pi (t - t_ref) / P."""
    out = []
    ec = e * math.cos(omega)
    f1, f2 = math.sqrt(1.0 + e), math.sqrt(1.0 - e)
    for ti in t:
        m = (m0 + 2.0 * math.pi * (ti - t_ref) / period) % (2.0 * math.pi)
        ea = m + e * math.sin(m) if e < 0.8 else math.pi
        for _ in range(30):
            step = (ea - e * math.sin(ea) - m) / (1.0 - e * math.cos(ea))
            ea -= step
            if abs(step) < 1e-10:
                break
        nu = 2.0 * math.atan2(f1 * math.sin(ea / 2.0), f2 * math.cos(ea / 2.0))
        out.append(math.cos(nu + omega) + ec)
    return out


def amplitude_fit(f, y, w, inst):
    """Best K >= 0 and offsets for y = K f + gamma_instrument: returns (K, chi2)."""
    groups = {}
    for i, k in enumerate(inst):
        groups.setdefault(k, []).append(i)
    sfy = sff = syy = 0.0
    for idx in groups.values():
        sw = sum(w[i] for i in idx)
        fm = sum(w[i] * f[i] for i in idx) / sw
        ym = sum(w[i] * y[i] for i in idx) / sw
        for i in idx:
            fi, yi = f[i] - fm, y[i] - ym
            sfy += w[i] * fi * yi
            sff += w[i] * fi * fi
            syy += w[i] * yi * yi
    if sff <= 0:
        return 0.0, syy
    k = max(sfy / sff, 0.0)
    return k, syy - 2 * k * sfy + k * k * sff


def keplerian_fit(t, y, w, inst, t_ref, period):
    """One Keplerian near period: coarse grid over (e, omega, M0), then a pattern search over (P, e, omega, M0)."""
    def chi2_of(p):
        per, e, om, m0 = p
        if not (0.0 <= e < 0.9) or per <= 0:
            return float("inf"), 0.0
        k, c = amplitude_fit(kepler_shape(t, t_ref, per, e, om, m0), y, w, inst)
        return c, k
    best, best_c = None, float("inf")
    for e in (0.0, 0.15, 0.3, 0.45, 0.6):
        for om in [i * math.pi / 4 for i in range(8 if e > 0 else 1)]:
            for j in range(16):
                p = (period, e, om, j * math.pi / 8)
                c, _ = chi2_of(p)
                if c < best_c:
                    best, best_c = p, c
    span = max(t) - min(t)
    steps = [period * period / span / 4.0, 0.05, 0.4, 0.4]
    for _ in range(40):
        moved = False
        for i in range(4):
            for sign in (1.0, -1.0):
                p = list(best)
                p[i] += sign * steps[i]
                c, _ = chi2_of(p)
                if c < best_c:
                    best, best_c, moved = tuple(p), c, True
        if not moved:
            steps = [s / 2.0 for s in steps]
            if steps[1] < 1e-3:
                break
    _, k = chi2_of(best)
    per, e, om, m0 = best
    return {"P_days": per, "K_ms": k, "e": e, "omega_rad": om % (2.0 * math.pi), "M0_rad": m0 % (2.0 * math.pi)}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: solution.py TASK_DIR")
    with open(os.path.join(sys.argv[1], "task.json")) as f:
        task = json.load(f)
    t, y = task["times_days"], task["rvs_ms"]
    w = [1.0 / (s * s) for s in task["sigmas_ms"]]
    t_ref = task["t_ref_days"]
    resid = remove_offsets(t, y, w, task["instruments"])
    freq = periodogram_peak(t, resid, w, t_ref)
    planet = keplerian_fit(t, y, w, task["instruments"], t_ref, 1.0 / freq)
    print(json.dumps([planet]))


if __name__ == "__main__":
    main()
