package termtext

import (
	"io"
	"unicode/utf8"
)

// Writer writes what it is given to an underlying writer through Text: newlines and tabs pass, every other
// control character becomes a visible escape and invalid UTF-8 U+FFFD. A multi-byte character split between
// two writes is held until the next write completes it; Flush writes what is held (as U+FFFD) at the end.
// A command's standard output and error go through one, so no command prints a raw control byte whatever it
// prints; a progress bar that redraws its own line in place writes to Raw.
type Writer struct {
	w    io.Writer
	held []byte // the start of a UTF-8 sequence the last write ended in
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p's text to the underlying writer as Text shows it and reports len(p) written on success.
func (t *Writer) Write(p []byte) (int, error) {
	buf := p
	if len(t.held) > 0 {
		buf = append(t.held, p...)
		t.held = nil
	}
	// Hold an incomplete trailing sequence (at most three bytes that could still start a valid rune).
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-3; i-- {
		if utf8.RuneStart(buf[i]) {
			if buf[i] >= utf8.RuneSelf && !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	if cut < len(buf) {
		t.held = append([]byte(nil), buf[cut:]...)
		buf = buf[:cut]
	}
	if len(buf) == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(t.w, Text(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a sequence held at the end of the last write, which no write completed, as U+FFFD.
func (t *Writer) Flush() error {
	if len(t.held) == 0 {
		return nil
	}
	held := t.held
	t.held = nil
	_, err := io.WriteString(t.w, Text(string(held)))
	return err
}

// Raw returns the writer under w when w is a Writer, else w: for output the program itself composes with
// control characters (a progress bar redrawn with CR), which puts only its own text and Line's through.
func Raw(w io.Writer) io.Writer {
	if t, ok := w.(*Writer); ok {
		return t.w
	}
	return w
}
