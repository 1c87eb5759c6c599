package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Panel draws a box of width×height cells with title (and a dimmer subtitle) set into its top border, as
// "┌ Title ── subtitle ───┐", and body's lines inside it, each cut or padded to the inner width. Lines beyond
// the inner height are dropped. A focused panel gets the accent border.
func Panel(st *Styles, title, subtitle string, body []string, width, height int, focused bool) string {
	if width < 4 || height < 2 {
		return ""
	}
	border := st.Border
	if focused {
		border = st.BorderFocus
	}
	inner := width - 2
	head := " " + st.PanelTitle.Render(title) + " "
	if subtitle != "" {
		head += border.Render("── ") + subtitle + " "
	}
	head = ansi.Truncate(head, inner-1, "…")
	fill := inner - 1 - lipgloss.Width(head)
	var b strings.Builder
	b.WriteString(border.Render("┌─") + head + border.Render(strings.Repeat("─", max(fill, 0))+"┐"))
	side := border.Render("│")
	for i := 0; i < height-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		b.WriteByte('\n')
		b.WriteString(side + fit(line, inner) + side)
	}
	b.WriteByte('\n')
	b.WriteString(border.Render("└" + strings.Repeat("─", inner) + "┘"))
	return b.String()
}

// fit cuts s (which may hold ANSI styles) to w cells or pads it with spaces to w cells.
func fit(s string, w int) string {
	n := lipgloss.Width(s)
	if n > w {
		return ansi.Truncate(s, w, "")
	}
	return s + strings.Repeat(" ", w-n)
}

// fitLines fits every line of s to w cells and s to exactly h lines.
func fitLines(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return strings.Join(out, "\n")
}
