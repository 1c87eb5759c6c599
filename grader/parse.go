package grader

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Row is one candidate a solution reports for a star (SPEC A5): an orbital period and a mid-transit time, both in
// days (the time in BKJD, like the light curve), and a score that ranks the star's candidates (higher is more
// confident). Rows produced by ParseRows always have finite fields and PeriodDays > 0.
type Row struct {
	PeriodDays float64 `json:"period_days"`
	T0Days     float64 `json:"t0_days"`
	Score      float64 `json:"score"`
}

// DroppedLine reports an output line that was not a valid row: its 1-based line number, its text (truncated to
// DroppedTextBytes bytes, made valid UTF-8) and why it was dropped.
type DroppedLine struct {
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

const (
	// MaxLineBytes is the longest line the parsers read; a longer line is dropped (its rest is skipped unread
	// into memory). A valid row is three numbers, well under 100 bytes.
	MaxLineBytes = 4096
	// DroppedTextBytes is how much of a dropped line's text is kept in its report.
	DroppedTextBytes = 80
	// MaxDroppedListed bounds the dropped lines listed one by one; when more are dropped, the list ends with one
	// summary entry (Line = the first unlisted line, Text empty) giving how many more there were.
	MaxDroppedListed = 100
	// MaxCountedRows is how many rows of a star count: the ones with the highest scores (SPEC A5).
	MaxCountedRows = 3
)

// rowHeader and starRowHeader are the header lines the parsers skip.
var (
	rowHeader     = []string{"period_days", "t0_days", "score"}
	starRowHeader = []string{"star_id", "period_days", "t0_days", "score"}
)

// ParseRows reads a solution's stdout (SPEC A5): one candidate per line as `period_days,t0_days,score`.
//
// Skipped without report: blank lines, lines whose first non-space character is '#', and header lines whose
// comma-separated fields are exactly "period_days", "t0_days", "score" (case-sensitive, spaces around a field
// allowed, anywhere in the output). A UTF-8 byte-order mark at the start and a trailing "\r" (CRLF line ends)
// are removed; spaces around each field are ignored.
//
// Dropped and reported: any other line that is not exactly three fields parsing (strconv.ParseFloat) into finite
// numbers with period_days > 0, and any line longer than MaxLineBytes. At most MaxDroppedListed lines are listed;
// see MaxDroppedListed for the summary entry. A read error ends the input and is reported as a dropped line.
//
// Rows are returned in output order, all of them; TopRows picks those that count.
func ParseRows(r io.Reader) (rows []Row, dropped []DroppedLine) {
	var d droppedList
	readLines(r, &d, func(n int, line string) {
		fields := splitFields(line)
		if slices.Equal(fields, rowHeader) {
			return
		}
		row, reason := parseRowFields(fields)
		if reason != "" {
			d.add(n, line, reason)
			return
		}
		rows = append(rows, row)
	})
	return rows, d.list()
}

// ParseStarRows reads a file of rows for many stars: one candidate per line as
// `star_id,period_days,t0_days,score`, with the same rules as ParseRows (the header, when present, is
// `star_id,period_days,t0_days,score`). star_id must be non-empty. Rows are grouped by star id, each star's rows in
// file order (which decides ties in score).
func ParseStarRows(r io.Reader) (rows map[string][]Row, dropped []DroppedLine) {
	var d droppedList
	rows = make(map[string][]Row)
	readLines(r, &d, func(n int, line string) {
		fields := splitFields(line)
		if slices.Equal(fields, starRowHeader) {
			return
		}
		if len(fields) != 4 {
			d.add(n, line, fmt.Sprintf("want 4 comma-separated fields (star_id,period_days,t0_days,score), got %d", len(fields)))
			return
		}
		if fields[0] == "" {
			d.add(n, line, "star_id is empty")
			return
		}
		row, reason := parseRowFields(fields[1:])
		if reason != "" {
			d.add(n, line, reason)
			return
		}
		rows[fields[0]] = append(rows[fields[0]], row)
	})
	return rows, d.list()
}

// TopRows returns the k rows with the highest scores, highest first; rows with equal scores keep their order in
// rows (a stable sort), and a NaN score ranks below every number. rows is not modified.
func TopRows(rows []Row, k int) []Row {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b Row) int {
		an, bn := math.IsNaN(a.Score), math.IsNaN(b.Score)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		return cmp.Compare(b.Score, a.Score)
	})
	if k < 0 {
		k = 0
	}
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// parseRowFields parses period_days, t0_days, score; reason is empty when the fields make a valid row.
func parseRowFields(fields []string) (Row, string) {
	if len(fields) != 3 {
		return Row{}, fmt.Sprintf("want 3 comma-separated fields (period_days,t0_days,score), got %d", len(fields))
	}
	var v [3]float64
	for i, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return Row{}, fmt.Sprintf("%s %q is not a number", rowHeader[i], truncate(f, 24))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Row{}, fmt.Sprintf("%s %q is not finite", rowHeader[i], truncate(f, 24))
		}
		v[i] = x
	}
	if v[0] <= 0 {
		return Row{}, fmt.Sprintf("period_days %q is not > 0", truncate(fields[0], 24))
	}
	return Row{PeriodDays: v[0], T0Days: v[1], Score: v[2]}, ""
}

// splitFields splits a line on commas and trims spaces around each field.
func splitFields(line string) []string {
	fields := strings.Split(line, ",")
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	return fields
}

// readLines calls fn with the 1-based number and the text of each line that is neither blank nor a '#' comment,
// after removing a leading byte-order mark, the line end ("\n" or "\r\n") and surrounding spaces. Lines longer
// than MaxLineBytes and read errors are added to d instead.
func readLines(r io.Reader, d *droppedList, fn func(n int, line string)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		total := 0
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			total += len(chunk)
			if room := MaxLineBytes + 2 - len(buf); room > 0 {
				buf = append(buf, chunk[:min(room, len(chunk))]...)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if total > 0 {
			line := string(buf)
			line = strings.TrimSuffix(line, "\n")
			line = strings.TrimSuffix(line, "\r")
			if n == 1 {
				line = strings.TrimPrefix(line, "\uFEFF")
			}
			// buf holds up to MaxLineBytes+2 bytes, room for a full line and its "\r\n"; a line cut short
			// is longer than that.
			tooLong := total > len(buf) || len(line) > MaxLineBytes
			switch trimmed := strings.TrimSpace(line); {
			case tooLong:
				d.add(n, line, fmt.Sprintf("line longer than %d bytes", MaxLineBytes))
			case trimmed == "" || trimmed[0] == '#':
			default:
				fn(n, trimmed)
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				d.add(n+1, "", "reading the output failed: "+err.Error())
			}
			return
		}
	}
}

// droppedList collects dropped lines, listing at most MaxDroppedListed.
type droppedList struct {
	listed    []DroppedLine
	more      int
	firstMore int
}

func (d *droppedList) add(n int, text, reason string) {
	if len(d.listed) < MaxDroppedListed {
		d.listed = append(d.listed, DroppedLine{Line: n, Text: truncate(text, DroppedTextBytes), Reason: reason})
		return
	}
	if d.more == 0 {
		d.firstMore = n
	}
	d.more++
}

func (d *droppedList) list() []DroppedLine {
	if d.more == 0 {
		return d.listed
	}
	return append(d.listed, DroppedLine{Line: d.firstMore,
		Reason: fmt.Sprintf("%d more lines dropped from line %d on (not listed)", d.more, d.firstMore)})
}

// truncate returns s cut to at most n bytes on a rune boundary, with "…" appended when cut, as valid UTF-8.
func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
