package termtext

import (
	"fmt"
	"unicode/utf8"
)

// JSON returns the encoded JSON document doc with every unsafe rune Text would escape, outside what encoding/json
// already escapes, written as a \uXXXX escape: DEL, the C1 controls and the bidi controls, which encoding/json
// leaves raw. Such runes can only stand inside strings, where the escape decodes to the same rune, so the
// document means what it meant (JSON output keeps the strings as they were written) and holds no raw control
// character. Newlines and tabs between values are the encoder's indentation and stay.
func JSON(doc []byte) []byte {
	i := 0
	for i < len(doc) {
		r, n := utf8.DecodeRune(doc[i:])
		if r != '\n' && r != '\t' && Unsafe(r) {
			break
		}
		i += n
	}
	if i == len(doc) {
		return doc
	}
	out := append([]byte(nil), doc[:i]...)
	for i < len(doc) {
		r, n := utf8.DecodeRune(doc[i:])
		if r != '\n' && r != '\t' && Unsafe(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, doc[i:i+n]...)
		}
		i += n
	}
	return out
}
