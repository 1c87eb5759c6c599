#!/usr/bin/python3
"""astropy's BoxLeastSquares on a light curve and grid given by engine/bls's tests, for side-by-side timing.

usage: astropy_bls.py LC.csv PMIN PMAX NPERIODS DURATIONS [OVERSAMPLE]

LC.csv has the header time,flux,flux_err (days, relative flux, its 1σ error). The periods are NPERIODS values
spaced uniformly in log period, exp(linspace(log(PMIN), log(PMAX), NPERIODS)), as bls.LogPeriodGrid builds
them; DURATIONS is a comma-separated list in days, tried at every period. The objective is "snr", the method
astropy's default ("fast", its C implementation, one thread); OVERSAMPLE is its phase bins per shortest duration
(default 10, astropy's own default).

Prints one JSON line: cpu_seconds and wall_seconds of the power() call alone (the process's CPU time, which on a
shared machine does not count the time other processes held the processor), best_index and best_period_days
(the period of the highest power), and n_points. Needs python3-astropy (Debian).
"""
import json
import sys
import time

import numpy as np
from astropy.timeseries import BoxLeastSquares


def main():
    path, pmin, pmax, n, durs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    oversample = int(sys.argv[6]) if len(sys.argv) > 6 else 10
    d = np.loadtxt(path, delimiter=",", skiprows=1)
    t, f, e = d[:, 0], d[:, 1], d[:, 2]
    model = BoxLeastSquares(t, f, e)
    periods = np.exp(np.linspace(np.log(pmin), np.log(pmax), n))
    durations = np.array([float(x) for x in durs.split(",")])
    c0, w0 = time.process_time(), time.perf_counter()
    res = model.power(periods, durations, objective="snr", oversample=oversample)
    c1, w1 = time.process_time(), time.perf_counter()
    i = int(np.argmax(res.power))
    print(json.dumps({"cpu_seconds": c1 - c0, "wall_seconds": w1 - w0, "best_index": i,
                      "best_period_days": float(res.period[i]), "n_points": int(t.size)}))


if __name__ == "__main__":
    main()
