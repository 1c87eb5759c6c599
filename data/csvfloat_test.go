package data

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendTimeAndFluxMatchStrconv checks the integer paths of appendTime and appendFlux against strconv's
// %.7f and %.9g, byte for byte: on times and relative fluxes as the simulator makes them, on values at the
// edges of the fast ranges (0.1, 1, 10, values that round up to the next power of ten, 2⁻¹¹, 2⁵²), on exact
// halfway cases (j/2⁸ has an exact 5 in its 8th decimal, j/2⁹ in its 9th; ties go to even), and on random
// bit patterns.
func TestAppendTimeAndFluxMatchStrconv(t *testing.T) {
	var got, want []byte
	check := func(x float64) {
		t.Helper()
		got, want = appendTime(got[:0], x), appendNum(want[:0], x, 'f', 7)
		if !bytes.Equal(got, want) {
			t.Fatalf("appendTime(%v) = %s, strconv %s", x, got, want)
		}
		got, want = appendFlux(got[:0], x), appendNum(want[:0], x, 'g', 9)
		if !bytes.Equal(got, want) {
			t.Fatalf("appendFlux(%v) = %s, strconv %s", x, got, want)
		}
	}
	edges := []float64{0, 0.1, 1, 10, 0.09999999995, 0.099999999949, 0.9999999995, 0.99999999949, 9.999999995,
		9.99999999499, 1.5, 2, 131.5, 1.0 / 2048, 1 << 52, 1<<52 + 1, 1 << 62, 1e300, math.SmallestNonzeroFloat64,
		math.MaxFloat64, math.NaN(), math.Inf(1)}
	for _, x := range edges {
		for _, y := range []float64{x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1))} {
			check(y)
			check(-y)
		}
	}
	for j := 1; j < 1<<14; j += 2 {
		check(float64(j) / 256)
		check(float64(j) / 512)
		check(float64(j) / 1024)
		check(120 + float64(j)/256)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 100000 {
		check(120 + 1500*rng.Float64())                   // a time, BKJD days
		check(131.5 + float64(rng.IntN(20000))*0.0204336) // a cadence time
		check(1 + 1e-3*rng.NormFloat64())                 // a relative flux
		check(1e-4 * (1 + rng.Float64()))                 // a flux error
		check(math.Float64frombits(rng.Uint64()))
		check(math.Pow(10, 4*rng.Float64()-2))
	}
}

// FuzzAppendTimeAndFlux: for any float64, appendTime and appendFlux write exactly what strconv writes with
// %.7f and %.9g (the columns of lightcurve.csv, whose bytes the sets' digests fix). Besides x itself it checks
// x folded into the ranges of the integer paths: a relative flux near 1 and a time in BKJD days.
func FuzzAppendTimeAndFlux(f *testing.F) {
	for _, x := range []float64{0, 1, 0.1, 9.999999995, 131.5204336, 1.0 / 2048, 1e-4, -1.5, 1 << 52} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		for _, v := range []float64{x, 1 + 0.01*math.Remainder(x, 1), 120 + math.Abs(math.Remainder(x, 1500))} {
			if got, want := appendTime(nil, v), appendNum(nil, v, 'f', 7); !bytes.Equal(got, want) {
				t.Fatalf("appendTime(%v) = %s, strconv %s", v, got, want)
			}
			if got, want := appendFlux(nil, v), appendNum(nil, v, 'g', 9); !bytes.Equal(got, want) {
				t.Fatalf("appendFlux(%v) = %s, strconv %s", v, got, want)
			}
		}
	})
}

// BenchmarkAppendTime formats a year of cadence times.
func BenchmarkAppendTime(b *testing.B) {
	buf := make([]byte, 0, 1<<20)
	for b.Loop() {
		buf = buf[:0]
		for i := range 17600 {
			buf = appendTime(buf, 131.5+float64(i)*0.0204336)
		}
	}
}

// BenchmarkAppendTimeStrconv is BenchmarkAppendTime with strconv, for comparison.
func BenchmarkAppendTimeStrconv(b *testing.B) {
	buf := make([]byte, 0, 1<<20)
	for b.Loop() {
		buf = buf[:0]
		for i := range 17600 {
			buf = strconv.AppendFloat(buf, 131.5+float64(i)*0.0204336, 'f', 7, 64)
		}
	}
}
