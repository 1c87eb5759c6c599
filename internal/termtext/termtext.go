package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Unsafe reports whether r is shown as an escape: the C0 controls (U+0000–U+001F), DEL (U+007F), the C1 controls
// (U+0080–U+009F), and the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which
// reorder the text around them. Newline and tab are among them; Text lets them through.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// escape writes r's visible escape: \r, \n and \t as Go writes them, the other ASCII controls as \xHH, the C1
// controls and the bidi controls as \uHHHH (what they are as code points; their UTF-8 bytes are two or three).
func escape(b *strings.Builder, r rune) {
	switch {
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\t':
		b.WriteString(`\t`)
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}

// clean returns s with every unsafe rune escaped, except newline and tab when keepLayout, and every invalid
// UTF-8 byte replaced by U+FFFD. It returns s itself when nothing changes.
func clean(s string, keepLayout bool) string {
	i := firstChange(s, keepLayout)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for _, r := range s[i:] { // ranging over a string yields U+FFFD for each invalid byte
		if Unsafe(r) && !(keepLayout && (r == '\n' || r == '\t')) {
			escape(&b, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// firstChange returns the byte offset of the first rune clean changes, or -1.
func firstChange(s string, keepLayout bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(keepLayout && (c == '\n' || c == '\t')) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return i
		}
		i += n
	}
	return -1
}

// Text returns s for a view that shows several lines (a solution's stderr, a build's output, a note): control
// characters other than newline and tab, C1 and bidi controls as visible escapes, invalid UTF-8 as U+FFFD.
func Text(s string) string { return clean(s, true) }

// Line returns s for one line of a view (a table cell, a name, an id): as Text, with newline and tab escaped too.
func Line(s string) string { return clean(s, false) }

// Styled returns a rendered view s, whose own styling is SGR sequences (ESC [ parameters m, as lipgloss writes
// them), with every other escape sequence and control character made visible as Text does: the styling stays,
// and nothing in s can move the cursor, clear the screen, or send an OSC (title, clipboard, link) to the
// terminal. It is a net under the views, which also pass what they show through Text or Line, since an SGR
// sequence inside the data passes here.
func Styled(s string) string {
	if firstChange(s, true) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		if n := sgrLen(s); n > 0 {
			b.WriteString(s[:n])
			s = s[n:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		s = s[n:]
		if Unsafe(r) && r != '\n' && r != '\t' {
			escape(&b, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sgrLen returns the length of the SGR sequence (ESC [ digits, ';' and ':' … m) s starts with, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// HasControl reports whether s holds invalid UTF-8 or a rune Text escapes: what must not reach a terminal raw.
func HasControl(s string) bool {
	return firstChange(s, true) >= 0
}
