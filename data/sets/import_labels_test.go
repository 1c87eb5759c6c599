package sets

import (
	"strings"
	"testing"
)

// TestParseLabelsCatalogue reads a KOI-like table without a category column as a catalogue of labelled stars:
// each row takes the category, FALSE POSITIVE rows are dropped, and a star keeps one row per planet. Without a
// default category the same table is refused for lacking the column.
func TestParseLabelsCatalogue(t *testing.T) {
	table := "kepid,kepoi_name,koi_disposition,koi_period,koi_time0bk,koi_duration,koi_depth\n" +
		"11442793,K00351.01,CONFIRMED,331.6,140.5,14.4,8322\n" +
		"11442793,K00351.03,CONFIRMED,59.74,158.96,8.0,566\n" +
		"11442793,K00351.99,FALSE POSITIVE,1.23,131.1,2.0,100\n" +
		"6922244,K00010.01,CANDIDATE,3.52,121.12,3.2,9146\n"
	labels, err := parseLabelsAs(strings.NewReader(table), "koi.csv", "labelled")
	if err != nil {
		t.Fatal(err)
	}
	if len(labels[11442793]) != 2 || len(labels[6922244]) != 1 {
		t.Fatalf("rows per star: %d, %d", len(labels[11442793]), len(labels[6922244]))
	}
	for _, r := range labels[11442793] {
		if r.str("category") != "labelled" || r.num("period") == 1.23 {
			t.Errorf("row %+v", r.cols)
		}
	}
	if _, err := parseLabels(strings.NewReader(table), "koi.csv"); err == nil || !strings.Contains(err.Error(), "category") {
		t.Errorf("a table without categories and no default: %v", err)
	}
}
