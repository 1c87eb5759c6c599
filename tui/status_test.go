package tui

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
)

func TestFitStatus(t *testing.T) {
	fold := []statusField{
		field(1, "P", "5.3000 d"), field(2, "T14", "3.6 h"), field(0, "depth", "4000±120 ppm"),
		val(0, "MES 368.7"), val(3, "N 11"),
	}
	tests := []struct {
		name   string
		width  int
		fields []statusField
		want   string
	}{
		{"everything fits", 80, fold, "P 5.3000 d  T14 3.6 h  depth 4000±120 ppm  MES 368.7  N 11"},
		// 52 cells without the labels of N (none), T14 and P, the least important first.
		{"labels go first", 54, fold, "P 5.3000 d  3.6 h  depth 4000±120 ppm  MES 368.7  N 11"},
		{"every label gone", 46, fold, "5.3000 d  3.6 h  4000±120 ppm  MES 368.7  N 11"},
		{"then the least important field", 44, fold, "5.3000 d  3.6 h  4000±120 ppm  MES 368.7"},
		// Without the field of rank 1 the label comes back.
		{"labels come back", 9, []statusField{field(0, "alpha", "1"), val(1, "22222222")}, "alpha 1"},
		{"down to the two of rank 0", 30, fold, "depth 4000±120 ppm  MES 368.7"},
		{"of two of the same rank the later goes first", 20, fold, "depth 4000±120 ppm"},
		{"a value is never cut", 10, fold, ""},
		{"an empty line", 10, nil, ""},
		{"a label alone", 10, []statusField{field(0, "ready", ""), val(1, "1234567890")}, "ready"},
		{"styled values are measured in cells", 12, []statusField{val(0, lipgloss.NewStyle().Bold(true).Render("S -1.000")), val(1, "C 0.5")},
			lipgloss.NewStyle().Bold(true).Render("S -1.000")},
	}
	for _, tt := range tests {
		got := fitStatus(tt.width, tt.fields...)
		if got != tt.want {
			t.Errorf("%s: fitStatus(%d) = %q, want %q", tt.name, tt.width, got, tt.want)
		}
		if w := lipgloss.Width(got); w > tt.width {
			t.Errorf("%s: %d cells wide, more than %d", tt.name, w, tt.width)
		}
	}
}
