package quicklook

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
)

// FoldCSVHeader is the header row of WriteFoldCSV.
var FoldCSVHeader = []string{"curve", "kind", "time_from_mid_h", "flux_ppm", "flux_err_ppm"}

// WriteFoldCSV writes curves of a fold as CSV (FoldCSVHeader): for each curve in order, its points
// (kind "point", no error) then its binned means (kind "bin", with their errors; empty bins left out), times in
// hours from mid-transit and fluxes in ppm relative to 1, as the star view and 'transitbench plot' draw them.
// names[i] names curves[i] ("transit", "odd", "even", "secondary").
func WriteFoldCSV(w io.Writer, names []string, curves []Curve) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(FoldCSVHeader); err != nil {
		return err
	}
	for i, c := range curves {
		for j := range c.X {
			if math.IsNaN(c.Y[j]) {
				continue
			}
			if err := cw.Write([]string{names[i], "point", num(c.X[j]), num(c.Y[j]), ""}); err != nil {
				return err
			}
		}
		for j := range c.BX {
			if math.IsNaN(c.BY[j]) {
				continue
			}
			e := ""
			if j < len(c.BE) && !math.IsNaN(c.BE[j]) {
				e = num(c.BE[j])
			}
			if err := cw.Write([]string{names[i], "bin", num(c.BX[j]), num(c.BY[j]), e}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WritePeriodogramCSV writes a BLS periodogram as CSV: a header row "period_d,bls_snr", then one row per trial
// period.
func WritePeriodogramCSV(w io.Writer, periods, power []float64) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"period_d", "bls_snr"}); err != nil {
		return err
	}
	for i, p := range periods {
		if err := cw.Write([]string{num(p), num(power[i])}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// num writes v in the shortest form that reads back as the same float64.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
