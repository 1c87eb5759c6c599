package grader

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"transitbench/engine/stat"
)

func TestParseRows(t *testing.T) {
	type drop struct {
		line   int
		reason string // a substring of the reason
	}
	cases := []struct {
		name    string
		in      string
		want    []Row
		dropped []drop
	}{
		{
			name: "header, comments, blanks, CRLF and a last line without newline",
			in:   "period_days,t0_days,score\r\n# BLS peaks\r\n\r\n   \r\n  # indented comment\n12.5,171.25,9.5\r\n3,170.0,-1",
			want: []Row{{12.5, 171.25, 9.5}, {3, 170, -1}},
		},
		{
			name: "header with spaces around the names, a byte-order mark, and a repeated header",
			in:   "\uFEFF period_days , t0_days , score \n1e1,1.7e2,4\nperiod_days,t0_days,score\n0.5,-3,0\n",
			want: []Row{{10, 170, 4}, {0.5, -3, 0}},
		},
		{
			name: "header variants that are not the header",
			in:   "Period_Days,T0_Days,Score\nt0_days,period_days,score\nstar_id,period_days,t0_days,score\nperiod,t0,score\n",
			dropped: []drop{
				{1, `period_days "Period_Days" is not a number`},
				{2, `period_days "t0_days" is not a number`},
				{3, "want 3 comma-separated fields (period_days,t0_days,score), got 4"},
				{4, `period_days "period" is not a number`},
			},
		},
		{
			name: "non-finite and non-positive values",
			in:   "NaN,170,1\n10,Inf,1\n10,170,-inf\n-3,170,1\n0,170,1\n1e400,170,1\n1e-400,170,1\n10,nan,1\n",
			dropped: []drop{
				{1, `period_days "NaN" is not finite`},
				{2, `t0_days "Inf" is not finite`},
				{3, `score "-inf" is not finite`},
				{4, `period_days "-3" is not > 0`},
				{5, `period_days "0" is not > 0`},
				{6, `period_days "1e400" is not finite`}, // overflows float64 to +Inf
				{7, `period_days "1e-400" is not > 0`},   // underflows to 0
				{8, `t0_days "nan" is not finite`},
			},
		},
		{
			name: "wrong field counts, empty fields, text",
			in:   "10,170\n10,170,1,2\n10,170,1,\n,170,1\nhello world\n10;170;1\n10 170 1\n",
			dropped: []drop{
				{1, "got 2"},
				{2, "got 4"},
				{3, "got 4"},
				{4, `period_days "" is not a number`},
				{5, "got 1"},
				{6, "got 1"},
				{7, "got 1"},
			},
		},
		{
			name:    "valid rows around garbage keep their order",
			in:      "5,171,1\nfoo,bar,baz\n6,172,2\n",
			want:    []Row{{5, 171, 1}, {6, 172, 2}},
			dropped: []drop{{2, `period_days "foo" is not a number`}},
		},
		{
			name: "very long lines are dropped and the next line still parses",
			in: strings.Repeat("9", 100000) + ",170,1\n7,171,1\n" +
				"7,171," + strings.Repeat(" ", MaxLineBytes+1-len("7,171,1")) + "1\n" + // MaxLineBytes+1 bytes
				"7,171," + strings.Repeat(" ", MaxLineBytes-len("7,171,1")) + "2\r\n", // exactly MaxLineBytes
			want: []Row{{7, 171, 1}, {7, 171, 2}},
			dropped: []drop{
				{1, fmt.Sprintf("line longer than %d bytes", MaxLineBytes)},
				{3, fmt.Sprintf("line longer than %d bytes", MaxLineBytes)},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, dropped := ParseRows(strings.NewReader(c.in))
			if fmt.Sprint(rows) != fmt.Sprint(c.want) {
				t.Errorf("rows = %v, want %v", rows, c.want)
			}
			if len(dropped) != len(c.dropped) {
				t.Fatalf("dropped %d lines, want %d: %+v", len(dropped), len(c.dropped), dropped)
			}
			for i, d := range c.dropped {
				if dropped[i].Line != d.line || !strings.Contains(dropped[i].Reason, d.reason) {
					t.Errorf("dropped[%d] = line %d %q, want line %d containing %q",
						i, dropped[i].Line, dropped[i].Reason, d.line, d.reason)
				}
				if len(dropped[i].Text) > DroppedTextBytes+len("…") {
					t.Errorf("dropped[%d].Text has %d bytes, want at most %d", i, len(dropped[i].Text), DroppedTextBytes+3)
				}
			}
		})
	}
}

func TestParseRowsManyDropped(t *testing.T) {
	// 250 garbage lines: the first MaxDroppedListed (100) are listed, then one entry sums up the other 150.
	in := strings.Repeat("garbage\n", 250) + "4,170,1\n"
	rows, dropped := ParseRows(strings.NewReader(in))
	if len(rows) != 1 || rows[0] != (Row{4, 170, 1}) {
		t.Errorf("rows = %v, want the one valid row", rows)
	}
	if len(dropped) != MaxDroppedListed+1 {
		t.Fatalf("got %d dropped entries, want %d", len(dropped), MaxDroppedListed+1)
	}
	last := dropped[MaxDroppedListed]
	if last.Line != 101 || !strings.Contains(last.Reason, "150 more lines dropped from line 101") {
		t.Errorf("summary entry = %+v, want line 101 and 150 more", last)
	}
}

func TestParseRowsTruncatesUTF8(t *testing.T) {
	// 60 two-byte runes = 120 bytes: the text is cut at 80 bytes, which is a rune boundary (40 runes).
	line := strings.Repeat("é", 60)
	_, dropped := ParseRows(strings.NewReader(line + "\n\xff\xfe,1,1\n"))
	if len(dropped) != 2 {
		t.Fatalf("dropped = %+v, want 2 lines", dropped)
	}
	if want := strings.Repeat("é", 40) + "…"; dropped[0].Text != want {
		t.Errorf("text = %q, want %q", dropped[0].Text, want)
	}
	if !utf8.ValidString(dropped[1].Text) || !utf8.ValidString(dropped[1].Reason) {
		t.Errorf("invalid UTF-8 in report %+v", dropped[1])
	}
}

func TestParseStarRows(t *testing.T) {
	in := "star_id,period_days,t0_days,score\n" +
		"dev-0001,10,170.5,3\n" +
		"dev-0002, 4.2 ,171,1\n" +
		"dev-0001,20,170.5,3\r\n" +
		",10,170,1\n" +
		"dev-0003,10,170\n" +
		"dev-0003,-1,170,1\n"
	rows, dropped := ParseStarRows(strings.NewReader(in))
	want := map[string][]Row{
		"dev-0001": {{10, 170.5, 3}, {20, 170.5, 3}},
		"dev-0002": {{4.2, 171, 1}},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("rows = %v, want %v", rows, want)
	}
	wantDrop := []struct {
		line   int
		reason string
	}{{5, "star_id is empty"}, {6, "want 4 comma-separated fields"}, {7, "is not > 0"}}
	if len(dropped) != len(wantDrop) {
		t.Fatalf("dropped = %+v, want %d lines", dropped, len(wantDrop))
	}
	for i, w := range wantDrop {
		if dropped[i].Line != w.line || !strings.Contains(dropped[i].Reason, w.reason) {
			t.Errorf("dropped[%d] = %+v, want line %d with %q", i, dropped[i], w.line, w.reason)
		}
	}
}

func TestTopRows(t *testing.T) {
	rows := []Row{
		{1, 170, 2},
		{2, 170, 5},
		{3, 170, math.NaN()},
		{4, 170, 5}, // ties with row 2: output order keeps row 2 first
		{5, 170, 2}, // ties with row 1
		{6, 170, -1},
	}
	periods := func(rs []Row) []float64 {
		var p []float64
		for _, r := range rs {
			p = append(p, r.PeriodDays)
		}
		return p
	}
	cases := []struct {
		k    int
		want []float64
	}{
		{3, []float64{2, 4, 1}},
		{5, []float64{2, 4, 1, 5, 6}},
		{10, []float64{2, 4, 1, 5, 6, 3}}, // NaN last
		{0, nil},
	}
	for _, c := range cases {
		got := periods(TopRows(rows, c.k))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("TopRows(k=%d) periods = %v, want %v", c.k, got, c.want)
		}
	}
	if rows[0].PeriodDays != 1 || rows[1].PeriodDays != 2 {
		t.Error("TopRows modified its input")
	}
}

// FuzzParseRows checks the parser's invariants on arbitrary output: it never panics, every row is finite with
// a positive period, the report is bounded and valid UTF-8, and rows written back out parse to themselves.
func FuzzParseRows(f *testing.F) {
	for _, s := range []string{
		"period_days,t0_days,score\n10,170,1\n",
		"10,170,1\r\n# x\n\n-1,2,3\nNaN,1,1\n1,2\n1,2,3,4\n",
		"\uFEFF1e3,-1e9,0x1p-2\n",
		strings.Repeat("1,", 3000) + "\n5,5,5",
		"\xff\xfe\x00,1,1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		rows, dropped := ParseRows(strings.NewReader(in))
		lines := strings.Count(in, "\n") + 1
		if len(rows) > lines {
			t.Fatalf("%d rows from %d lines", len(rows), lines)
		}
		if len(dropped) > MaxDroppedListed+1 {
			t.Fatalf("%d dropped entries, want at most %d", len(dropped), MaxDroppedListed+1)
		}
		for _, d := range dropped {
			if d.Line < 1 || d.Line > lines || !utf8.ValidString(d.Text) || d.Reason == "" ||
				len(d.Text) > DroppedTextBytes+len("…") {
				t.Fatalf("bad report %+v", d)
			}
		}
		var out strings.Builder
		for _, r := range rows {
			if !(r.PeriodDays > 0) || math.IsInf(r.PeriodDays, 0) || !stat.Finite(r.T0Days) || !stat.Finite(r.Score) {
				t.Fatalf("invalid row %+v", r)
			}
			g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
			fmt.Fprintf(&out, "%s,%s,%s\n", g(r.PeriodDays), g(r.T0Days), g(r.Score))
		}
		again, d2 := ParseRows(strings.NewReader(out.String()))
		if len(d2) != 0 || fmt.Sprint(again) != fmt.Sprint(rows) {
			t.Fatalf("round trip: %v -> %v (dropped %v)", rows, again, d2)
		}
	})
}

// FuzzParseStarRows checks the score-file parser: it never panics, every row is finite with a positive period
// under a non-empty star id, no star gets more rows than the file has lines, the report is bounded, and the rows
// written back out parse to themselves.
func FuzzParseStarRows(f *testing.F) {
	for _, s := range []string{
		"star_id,period_days,t0_days,score\ndev-0001,10,170,1\ndev-0001,20,171,2\ndev-0002,3.5,169.9,0.5\n",
		"dev-0001,10,170\n,1,2,3\ndev-0003,-1,2,3\ndev-0004,1,2,inf\n# c\n\n",
		"\uFEFFA-0000, 1e3 ,-1e9,0x1p-2\r\nA-0000,1,1,1,1\n",
		strings.Repeat("s,1,1,1\n", 200) + strings.Repeat("x", MaxLineBytes+10) + "\n",
		"\xff,1,1,1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		rows, dropped := ParseStarRows(strings.NewReader(in))
		lines := strings.Count(in, "\n") + 1
		if len(dropped) > MaxDroppedListed+1 {
			t.Fatalf("%d dropped entries, want at most %d", len(dropped), MaxDroppedListed+1)
		}
		for _, d := range dropped {
			if d.Line < 1 || d.Line > lines+1 || !utf8.ValidString(d.Text) || d.Reason == "" || len(d.Text) > DroppedTextBytes+len("…") {
				t.Fatalf("bad report %+v", d)
			}
		}
		var out strings.Builder
		total := 0
		ids := make([]string, 0, len(rows))
		for id := range rows {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if id == "" || strings.ContainsAny(id, ",\n") {
				t.Fatalf("star id %q", id)
			}
			for _, r := range rows[id] {
				total++
				if !(r.PeriodDays > 0) || math.IsInf(r.PeriodDays, 0) || !stat.Finite(r.T0Days) || !stat.Finite(r.Score) {
					t.Fatalf("invalid row %+v", r)
				}
				g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
				fmt.Fprintf(&out, "%s,%s,%s,%s\n", id, g(r.PeriodDays), g(r.T0Days), g(r.Score))
			}
		}
		if total > lines {
			t.Fatalf("%d rows from %d lines", total, lines)
		}
		again, d2 := ParseStarRows(strings.NewReader(out.String()))
		if len(d2) != 0 || len(again) != len(rows) {
			t.Fatalf("round trip: %d stars -> %d (dropped %v)", len(rows), len(again), d2)
		}
		for id, rs := range rows {
			if fmt.Sprint(again[id]) != fmt.Sprint(rs) {
				t.Fatalf("round trip of %s: %v -> %v", id, rs, again[id])
			}
		}
	})
}
