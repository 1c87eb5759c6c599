package data

import (
	"math"
	"math/bits"
	"strconv"
)

// appendTime appends x as appendNum(dst, x, 'f', 7) does: the time column of lightcurve.csv. Times in BKJD
// (hundreds to a few thousand days) take an exact integer path (scaledRound) that is about twice as fast as
// strconv's; other values go to strconv.
func appendTime(dst []byte, x float64) []byte {
	n, ok := scaledRound(x, 1e7)
	if !ok {
		return appendNum(dst, x, 'f', 7)
	}
	if math.Signbit(x) {
		dst = append(dst, '-')
	}
	dst = strconv.AppendUint(dst, n/1e7, 10)
	var frac [8]byte
	frac[0] = '.'
	appendDigits(frac[1:], n%1e7)
	return append(dst, frac[:]...)
}

// appendFlux appends x as appendNum(dst, x, 'g', 9) does: the flux and flux_err columns of lightcurve.csv.
// A relative flux, 0.1 ≤ |x| < 10, takes an exact integer path (scaledRound) that is about twice as fast as
// strconv's; other values go to strconv. In that range %.9g writes x with 9 significant digits as a plain
// decimal and drops the trailing zeros of the fraction, and its point when nothing is left after it.
func appendFlux(dst []byte, x float64) []byte {
	a := math.Abs(x)
	var n uint64
	var ok bool
	intDigits := 1 // digits before the point: one for 1 ≤ |x| < 10, a lone 0 below
	switch {
	case a >= 1 && a < 10:
		n, ok = scaledRound(x, 1e8)
	case a >= 0.1 && a < 1:
		n, ok = scaledRound(x, 1e9)
		intDigits = 0
	}
	if !ok || n >= 1e9 { // rounded up to the next power of ten: another exponent, left to strconv
		return appendNum(dst, x, 'g', 9)
	}
	if math.Signbit(x) {
		dst = append(dst, '-')
	}
	var digits [9]byte
	appendDigits(digits[:], n)
	if intDigits == 0 {
		dst = append(dst, '0')
	} else {
		dst = append(dst, digits[0])
	}
	frac := digits[intDigits:]
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if len(frac) > 0 {
		dst = append(dst, '.')
		dst = append(dst, frac...)
	}
	return dst
}

// appendDigits writes the len(dst) lowest decimal digits of n into dst, with leading zeros.
func appendDigits(dst []byte, n uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
}

// scaledRound returns |x|·pow10 rounded to the nearest integer, ties to even: the digits strconv writes for
// x with log₁₀(pow10) decimals, as it rounds the exact binary value of x. With |x| = m·2⁻ˢ (m the 53-bit
// significand) the product m·pow10 is exact in 128 bits and the rounding is a shift; ok is false when that
// does not apply: x zero, subnormal, not finite, an integer of 2⁵² or more, below 2⁻¹¹ (s ≥ 64), or
// |x|·pow10 ≥ 2⁶³.
func scaledRound(x float64, pow10 uint64) (n uint64, ok bool) {
	b := math.Float64bits(x)
	e := int(b>>52) & 0x7ff
	if e == 0 || e == 0x7ff {
		return 0, false
	}
	m := b&(1<<52-1) | 1<<52
	s := uint(1075 - e) // |x| = m·2⁻ˢ
	if 1075-e <= 0 || s >= 64 {
		return 0, false
	}
	hi, lo := bits.Mul64(m, pow10)
	if hi>>(s-1) != 0 { // m·pow10 ≥ 2⁶³⁺ˢ: the result would not fit below 2⁶³
		return 0, false
	}
	n = hi<<(64-s) | lo>>s
	rem, half := lo&(1<<s-1), uint64(1)<<(s-1)
	if rem > half || rem == half && n&1 == 1 {
		n++
	}
	return n, true
}
