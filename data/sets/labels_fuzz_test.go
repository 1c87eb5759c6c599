package sets

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"transitbench/data/kepref"
)

// realLabelSeeds makes label tables from the real catalogues: the KOI table's first 60 rows as a label table
// (kepid, category from the disposition, koi_period, koi_time0bk, koi_duration, koi_depth, the KOI names
// themselves), the Villanova EB catalogue's first 40 rows as eclipsing binaries (BKJD t0 = bjd0 − 54833), and
// the raw head of the KOI file (comment lines and 150 columns).
func realLabelSeeds(t testing.TB) [][]byte {
	t.Helper()
	read := func(name string) *kepref.Table {
		tb, err := kepref.ReadTable("tables/" + name)
		if err != nil {
			t.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
		}
		return tb
	}
	col := func(tb *kepref.Table, name string) int {
		i, ok := tb.Col[name]
		if !ok {
			t.Fatalf("no column %s", name)
		}
		return i
	}
	koi := read("koi_cumulative.csv")
	var b strings.Builder
	b.WriteString("kepid,category,koi_period,koi_time0bk,koi_duration,koi_depth\n")
	cat := map[string]string{"CONFIRMED": "confirmed", "CANDIDATE": "injected", "FALSE POSITIVE": "eb"}
	h := koi
	for _, r := range koi.Rows[:60] {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s\n", r[col(h, "kepid")], cat[r[col(h, "koi_disposition")]], r[col(h, "koi_period")],
			r[col(h, "koi_time0bk")], r[col(h, "koi_duration")], r[col(h, "koi_depth")])
	}
	seeds := [][]byte{[]byte(b.String())}
	eb := read("villanova_eb_catalog.csv")
	b.Reset()
	b.WriteString("kic,category,period,t0,depth,counted\n")
	h = eb
	for _, r := range eb.Rows[:40] {
		bjd0, _ := strconv.ParseFloat(r[col(h, "bjd0")], 64)
		depth, _ := strconv.ParseFloat(r[col(h, "pdepth")], 64)
		fmt.Fprintf(&b, "%s,eb,%s,%.6f,%.1f,true\n", r[col(h, "KIC")], r[col(h, "period")], bjd0-54833, depth*1e6)
	}
	seeds = append(seeds, []byte(b.String()))
	dir, err := kepref.Dir()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "tables", "koi_cumulative.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return append(seeds, raw[:bytes.IndexByte(raw[20000:], '\n')+20001])
}

// FuzzParseLabels checks the label-table parser on arbitrary bytes: an error, or rows that each have a
// positive kic, a lower-case category and finite numbers in every non-empty numeric column.
func FuzzParseLabels(f *testing.F) {
	for _, s := range realLabelSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte("kic,category,population\n11442793,injected,random\n"))
	f.Add([]byte("kic,category,period\n1,eb,nan\n"))
	f.Add([]byte("KIC,Category\n\"1\",\"EB\"\n2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		labels, err := parseLabels(bytes.NewReader(b), "fuzz.csv")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.csv") || len(err.Error()) > 2000 {
				t.Fatalf("error %q: want a bounded message naming the file", err)
			}
			return
		}
		if len(labels) == 0 {
			t.Fatal("no rows and no error")
		}
		for kic, rows := range labels {
			if kic <= 0 || len(rows) == 0 {
				t.Fatalf("kic %d with %d rows", kic, len(rows))
			}
			for _, r := range rows {
				if r.kic != kic || r.str("category") != strings.ToLower(r.str("category")) {
					t.Fatalf("row %+v under kic %d", r, kic)
				}
				for _, k := range numericLabels {
					if s := r.str(k); s != "" {
						if v := r.num(k); math.IsNaN(v) || math.IsInf(v, 0) {
							t.Fatalf("%s %q accepted as %g", k, s, v)
						}
					}
				}
			}
		}
	})
}

// TestParseLabelsBareQuote is the fuzzer's first finding: a bare quote in a row made csv.Reader fail, and
// asking it for the failed row's line (FieldPos) panicked; now the CSV error is returned with its line.
func TestParseLabelsBareQuote(t *testing.T) {
	_, err := parseLabels(strings.NewReader("kic,category\n1\"0,eb\n"), "labels.csv")
	if err == nil || !strings.Contains(err.Error(), "labels.csv") || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("got %v", err)
	}
}
