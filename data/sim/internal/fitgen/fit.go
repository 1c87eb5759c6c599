package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"go/format"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// nQuantiles is the number of points of each marginal quantile table (probabilities 0, 1/(n−1), …, 1).
const nQuantiles = 101

// table is a CSV file read into rows addressed by column name.
type table struct {
	col  map[string]int
	rows [][]string
}

// readTable reads a CSV file, skipping lines that start with '#'.
func readTable(path string) (*table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the Kepler table (pass -tables DIR holding it): %w", err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "#") && strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	r := csv.NewReader(strings.NewReader(strings.Join(lines, "\n")))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	t := &table{col: map[string]int{}, rows: recs[1:]}
	for i, name := range recs[0] {
		t.col[strings.TrimSpace(name)] = i
	}
	return t, nil
}

// num returns the value of column name in row as a number, and whether it is present and finite.
func (t *table) num(row []string, name string) (float64, bool) {
	i, ok := t.col[name]
	if !ok || i >= len(row) {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(row[i]), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// nums returns the numbers in the named columns of row (0 where num finds none) and whether num found them all.
func (t *table) nums(row []string, names ...string) ([]float64, bool) {
	v := make([]float64, len(names))
	all := true
	for i, name := range names {
		var ok bool
		v[i], ok = t.num(row, name)
		all = all && ok
	}
	return v, all
}

func (t *table) str(row []string, name string) string {
	i, ok := t.col[name]
	if !ok || i >= len(row) {
		return ""
	}
	return strings.TrimSpace(row[i])
}

// copulaFit is a fitted Gaussian copula: names of the variables, their quantile tables and the Cholesky
// factor of the normal scores' correlation matrix.
type copulaFit struct {
	names []string
	q     [][]float64
	chol  [][]float64
	n     int
}

// fitCopula fits a Gaussian copula to the rows of x (one row per object, one column per variable).
func fitCopula(names []string, x [][]float64) (*copulaFit, error) {
	d, n := len(names), len(x)
	if n < 50 {
		return nil, fmt.Errorf("only %d objects to fit %v", n, names)
	}
	f := &copulaFit{names: names, n: n}
	z := make([][]float64, d)
	for j := range d {
		col := make([]float64, n)
		for i := range n {
			col[i] = x[i][j]
		}
		f.q = append(f.q, quantiles(col))
		z[j] = normalScores(col)
	}
	corr := make([][]float64, d)
	for a := range d {
		corr[a] = make([]float64, d)
		for b := range d {
			corr[a][b] = correlation(z[a], z[b])
		}
	}
	l, err := cholesky(corr)
	if err != nil {
		return nil, err
	}
	f.chol = l
	return f, nil
}

// quantiles returns the nQuantiles empirical quantiles of v (linear interpolation between order statistics).
func quantiles(v []float64) []float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	out := make([]float64, nQuantiles)
	for k := range nQuantiles {
		p := float64(k) / float64(nQuantiles-1) * float64(len(s)-1)
		i := int(p)
		if i >= len(s)-1 {
			out[k] = s[len(s)-1]
			continue
		}
		out[k] = s[i] + (p-float64(i))*(s[i+1]-s[i])
	}
	return out
}

// normalScores maps v to Φ⁻¹((rank + ½)/n), ties sharing their mean rank.
func normalScores(v []float64) []float64 {
	n := len(v)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case v[a] < v[b]:
			return -1
		case v[a] > v[b]:
			return 1
		}
		return 0
	})
	z := make([]float64, n)
	for i := 0; i < n; {
		j := i
		for j < n && v[idx[j]] == v[idx[i]] {
			j++
		}
		rank := float64(i+j-1) / 2
		for k := i; k < j; k++ {
			z[idx[k]] = normQuantile((rank + 0.5) / float64(n))
		}
		i = j
	}
	return z
}

// normQuantile is Φ⁻¹(p) = −√2 erfc⁻¹(2p).
func normQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

func correlation(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	if saa == 0 || sbb == 0 {
		return 0
	}
	return sab / math.Sqrt(saa*sbb)
}

// cholesky returns the lower-triangular L with L Lᵀ = a.
func cholesky(a [][]float64) ([][]float64, error) {
	n := len(a)
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
	}
	for i := range n {
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := range j {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if s <= 0 {
					return nil, errors.New("correlation matrix is not positive definite")
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	return l, nil
}

// dr25BaselineDays is the Q1–Q17 time span (BKJD ≈ 131.5–1591.0, the dv light curves' span) and
// dr25DutyCycle the share of it with valid data (≈ 0.88 after gaps and flags): together they give the number
// of transits behind a KOI's model SNR.
const (
	dr25BaselineDays = 1459.5
	dr25DutyCycle    = 0.88
)

// cdppFit is CDPP at 6 h versus Kepler magnitude: per bin centre, the median of log10 CDPP and its scatter
// (half the 16–84 % range).
type cdppFit struct {
	kepmag, logMedian, logSigma []float64
	counts                      []int
}

// fitCDPP estimates each KOI's CDPP at its transit duration from its model SNR (SNR = depth/CDPP_D · √N, so
// CDPP_D = depth · √N / SNR, N = baseline · duty cycle / period) and scales it to 6 h as white noise would
// (CDPP_6h = CDPP_D · √(D/6 h)), then fits log10 CDPP_6h in half-magnitude bins.
func fitCDPP(koi *table) *cdppFit {
	const lo, width, nbins = 10.0, 0.5, 13 // bins centred 10.0 … 16.0
	bins := make([][]float64, nbins)
	for _, row := range koi.rows {
		v, ok := koi.nums(row, "koi_kepmag", "koi_depth", "koi_duration", "koi_model_snr", "koi_period")
		kp, depth, dur, snr, p := v[0], v[1], v[2], v[3], v[4]
		if !ok || snr < 12 || depth <= 0 || dur <= 0 || p <= 0 || p > 200 {
			continue
		}
		// Keep planet-like signals: eclipsing binaries' SNR is dominated by their model fit, not the noise.
		if depth > 3e4 || koi.str(row, "koi_fpflag_ss") == "1" {
			continue
		}
		ntr := math.Max(1, dr25BaselineDays*dr25DutyCycle/p)
		cdpp6 := depth * math.Sqrt(ntr) / snr * math.Sqrt(dur/6)
		b := int(math.Floor((kp - lo + width/2) / width))
		if b < 0 || b >= nbins {
			continue
		}
		bins[b] = append(bins[b], math.Log10(cdpp6))
	}
	f := &cdppFit{}
	for b, v := range bins {
		if len(v) < 20 {
			continue
		}
		q := quantiles(v)
		f.kepmag = append(f.kepmag, lo+float64(b)*width)
		f.logMedian = append(f.logMedian, q[50])
		f.logSigma = append(f.logSigma, (q[84]-q[16])/2)
		f.counts = append(f.counts, len(v))
	}
	return f
}

// render reads the tables in dir and returns the formatted Go source of fitted.go.
func render(dir string) ([]byte, error) {
	koi, err := readTable(filepath.Join(dir, "koi_cumulative.csv"))
	if err != nil {
		return nil, err
	}
	eb, err := readTable(filepath.Join(dir, "villanova_eb_catalog.csv"))
	if err != nil {
		return nil, err
	}
	stars, err := fitStars(koi)
	if err != nil {
		return nil, fmt.Errorf("stars: %w", err)
	}
	planets, err := fitConfirmed(koi)
	if err != nil {
		return nil, fmt.Errorf("confirmed planets: %w", err)
	}
	ebs, err := fitEBs(eb)
	if err != nil {
		return nil, fmt.Errorf("eclipsing binaries: %w", err)
	}
	cdpp := fitCDPP(koi)

	var w bytes.Buffer
	fmt.Fprintf(&w, "// Code generated by data/sim/internal/fitgen from koi_cumulative.csv and villanova_eb_catalog.csv; DO NOT EDIT.\n\n")
	fmt.Fprintf(&w, "package sim\n\n")
	writeCopula(&w, "starCopula", "Kepler targets (unique KOI hosts): Kepler magnitude, Teff [K], log g [cgs], log10 radius [R☉]", stars)
	writeCopula(&w, "confirmedCopula", "confirmed Kepler planets: log10 period [d], log10 radius [R⊕]", planets)
	writeCopula(&w, "ebCopula", "Villanova eclipsing binaries with 0.25 d < P < 120 d and known morphology: log10 period [d], log10 primary depth, secondary/primary depth ratio (0: no secondary), log10 primary width [phase], secondary/primary width ratio, secondary phase − 0.5, morphology", ebs)
	fmt.Fprintf(&w, "// cdppFit is log10 CDPP at 6 h [ppm] versus Kepler magnitude, from %d KOIs with model SNR ≥ 12:\n", sum(cdpp.counts))
	fmt.Fprintf(&w, "// CDPP_6h = depth·√N/SNR·√(T14/6 h), N = %.1f d · %.2f / P; per half-magnitude bin the median and half the 16–84 %% range.\n", dr25BaselineDays, dr25DutyCycle)
	fmt.Fprintf(&w, "var cdppFit = cdppTable{\n\tkepmag: []float64%s,\n\tlogMedian: []float64%s,\n\tlogSigma: []float64%s,\n}\n", floats(cdpp.kepmag), floats(cdpp.logMedian), floats(cdpp.logSigma))
	return format.Source(w.Bytes())
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

func writeCopula(w io.Writer, name, what string, f *copulaFit) {
	fmt.Fprintf(w, "// %s is a Gaussian copula fitted to %d %s.\n", name, f.n, what)
	fmt.Fprintf(w, "var %s = copula{\n\tquantiles: [][]float64{\n", name)
	for j, q := range f.q {
		fmt.Fprintf(w, "\t\t// %s\n\t\t%s,\n", f.names[j], floats(q))
	}
	fmt.Fprintf(w, "\t},\n\tchol: [][]float64{\n")
	for _, r := range f.chol {
		fmt.Fprintf(w, "\t\t%s,\n", floats(r))
	}
	fmt.Fprintf(w, "\t},\n}\n\n")
}

func floats(v []float64) string {
	var b strings.Builder
	b.WriteString("{")
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatFloat(x, 'g', 6, 64))
	}
	b.WriteString("}")
	return b.String()
}

// fitStars fits the joint distribution of Kepler magnitude, Teff, log g and log10 radius over unique KOI hosts.
func fitStars(koi *table) (*copulaFit, error) {
	seen := map[string]bool{}
	var x [][]float64
	for _, row := range koi.rows {
		id := koi.str(row, "kepid")
		v, ok := koi.nums(row, "koi_kepmag", "koi_steff", "koi_slogg", "koi_srad")
		kp, teff, logg, rad := v[0], v[1], v[2], v[3]
		if seen[id] || !ok || rad <= 0 {
			continue
		}
		seen[id] = true
		x = append(x, []float64{kp, teff, logg, math.Log10(rad)})
	}
	return fitCopula([]string{"kepmag", "teff", "logg", "log10 radius"}, x)
}

// fitConfirmed fits the joint distribution of period and radius of confirmed planets.
func fitConfirmed(koi *table) (*copulaFit, error) {
	var x [][]float64
	for _, row := range koi.rows {
		if koi.str(row, "koi_disposition") != "CONFIRMED" {
			continue
		}
		v, ok := koi.nums(row, "koi_period", "koi_prad")
		p, r := v[0], v[1]
		if !ok || p <= 0 || r <= 0 || r > 30 {
			continue
		}
		x = append(x, []float64{math.Log10(p), math.Log10(r)})
	}
	return fitCopula([]string{"log10 period", "log10 radius"}, x)
}

// fitEBs fits the joint distribution of the catalogue's eclipse parameters.
func fitEBs(eb *table) (*copulaFit, error) {
	var x [][]float64
	for _, row := range eb.rows {
		v, ok := eb.nums(row, "period", "pdepth", "sdepth", "pwidth", "swidth", "sep", "morph")
		p, pd, sd, pw, sw, sep, morph := v[0], v[1], v[2], v[3], v[4], v[5], v[6]
		if !ok || p < 0.25 || p > 120 || pd <= 0 || pw <= 0 || morph < 0 {
			continue
		}
		ratio, wratio, dsep := 0.0, 1.0, 0.0
		if sd > 0 {
			ratio = math.Min(sd/pd, 1)
			if sw > 0 {
				wratio = sw / pw
			}
			dsep = sep - 0.5
		}
		x = append(x, []float64{math.Log10(p), math.Log10(pd), ratio, math.Log10(pw), wratio, dsep, morph})
	}
	return fitCopula([]string{"log10 period", "log10 primary depth", "secondary/primary depth", "log10 primary width", "secondary/primary width", "secondary phase − 0.5", "morphology"}, x)
}
