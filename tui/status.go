package tui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// statusField is one item of a header or status line: a value and the label before it. A value is never cut:
// when the line is too wide, fitStatus drops labels, then whole fields, least important first. A label that
// the value cannot do without ("MES" before 36.2) belongs in the value.
type statusField struct {
	// Label is a word before the value ("depth"), written "Label Value"; dropped first. It may hold styles.
	Label string
	// Value is the value with its unit ("4000±100 ppm"); it may hold styles.
	Value string
	// Rank is the field's importance: 0 is the most important; the fields of the highest rank go first (the
	// later of two fields of the same rank before the earlier).
	Rank int
}

// statusSep separates the fields of a status line.
const statusSep = "  "

// fitStatus writes fields on one line of at most width cells, in their order, separated by two spaces. When
// they do not fit it drops labels, least important first (Rank), then the least important field (with every
// label back), and so on; it never cuts a value, so a line where even the most important value does not fit
// is empty.
func fitStatus(width int, fields ...statusField) string {
	order := make([]int, len(fields))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		fa, fb := fields[order[a]], fields[order[b]]
		if fa.Rank != fb.Rank {
			return fa.Rank > fb.Rank
		}
		return order[a] > order[b]
	})
	label := make([]bool, len(fields))
	show := make([]bool, len(fields))
	render := func() string {
		var parts []string
		for i, f := range fields {
			switch {
			case !show[i]:
			case label[i] && f.Label != "" && f.Value != "":
				parts = append(parts, f.Label+" "+f.Value)
			case f.Value != "":
				parts = append(parts, f.Value)
			default:
				parts = append(parts, f.Label)
			}
		}
		return strings.Join(parts, statusSep)
	}
	// Fewer fields are tried only when no choice of labels fits; with each field fewer, the labels come back.
	for drop := 0; drop <= len(order); drop++ {
		for i := range fields {
			show[i], label[i] = fields[i].Value != "" || fields[i].Label != "", true
		}
		for _, i := range order[:drop] {
			show[i] = false
		}
		line := render()
		if lipgloss.Width(line) <= width {
			return line
		}
		for _, i := range order {
			if show[i] && fields[i].Label != "" && fields[i].Value != "" {
				label[i] = false
				if line = render(); lipgloss.Width(line) <= width {
					return line
				}
			}
		}
	}
	return ""
}

// field is a statusField of rank r: label and value.
func field(r int, label, v string) statusField { return statusField{Label: label, Value: v, Rank: r} }

// val is a statusField of rank r without a label.
func val(r int, v string) statusField { return statusField{Value: v, Rank: r} }
