package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Hostile is text a solution could print: OSC 52 (clipboard), OSC 0 (title), CSI 2J (clear), OSC 8 (a link),
// CR (overwrite the line), BEL, a C1 CSI (U+009B), a bidi override, invalid UTF-8, and an SGR sequence.
const hostile = "a\x1b]52;c;aGk=\x07b\x1b]0;owned\x1b\\c\x1b[2Jd\x1b]8;;http://x\x1b\\e\rf\u009b2Jg\u202eh\u2066i\xffj\x1b[31mk\x7f\tl\nm"

func TestText(t *testing.T) {
	got := Text(hostile)
	want := `a\x1b]52;c;aGk=\x07b\x1b]0;owned\x1b\c\x1b[2Jd\x1b]8;;http://x\x1b\e\rf\u009b2Jg\u202eh\u2066i` + "\uFFFD" + `j\x1b[31mk\x7f` + "\tl\nm"
	if got != want {
		t.Errorf("Text =\n%q\nwant\n%q", got, want)
	}
	if HasControl(got) {
		t.Errorf("Text left a control character: %q", got)
	}
	if s := "plain text, ünïcode ✓\n\tindented"; Text(s) != s {
		t.Errorf("Text changed safe text: %q", Text(s))
	}
}

func TestLine(t *testing.T) {
	got := Line("name\nsecond\tcol\r")
	if want := `name\nsecond\tcol\r`; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	if strings.ContainsAny(Line(hostile), "\n\t") || HasControl(Line(hostile)) {
		t.Errorf("Line left a control character: %q", Line(hostile))
	}
}

func TestStyled(t *testing.T) {
	view := "\x1b[1;38;5;12mtitle\x1b[0m " + hostile
	got := Styled(view)
	if !strings.HasPrefix(got, "\x1b[1;38;5;12mtitle\x1b[0m a") {
		t.Errorf("Styled dropped the view's styling: %q", got)
	}
	// Only SGR sequences keep their ESC.
	for i := strings.IndexByte(got, 0x1b); i >= 0; i = strings.IndexByte(got, 0x1b) {
		if n := sgrLen(got[i:]); n == 0 {
			t.Fatalf("Styled left a non-SGR escape at %d: %q", i, got)
		} else {
			got = got[i+n:]
		}
	}
	if HasControl(strings.ReplaceAll(Styled(view), "\x1b", "")) {
		t.Errorf("Styled left a control character: %q", Styled(view))
	}
}

func TestWriterSplitsRunes(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	in := []byte("é✓😀" + hostile)
	for i := range in { // one byte a write: every multi-byte rune is split
		if n, err := w.Write(in[i : i+1]); n != 1 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	w.Write([]byte("\xe2\x9c")) // a sequence the stream ends in
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := Text(string(in)) + "\uFFFD\uFFFD"; buf.String() != want {
		t.Errorf("written\n%q\nwant\n%q", buf.String(), want)
	}
	if HasControl(buf.String()) {
		t.Errorf("Writer left a control character: %q", buf.String())
	}
}

func TestJSON(t *testing.T) {
	doc, err := json.MarshalIndent(map[string]string{"stderr": hostile}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !HasControl(string(doc)) {
		t.Fatalf("the attack needs encoding/json to leave a control rune raw: %q", doc)
	}
	safe := JSON(doc)
	if HasControl(string(safe)) {
		t.Errorf("JSON left a control character: %q", safe)
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil {
		t.Fatal(err)
	}
	// The strings decode as they were written (invalid UTF-8 was already U+FFFD in encoding/json's output).
	if want := strings.ToValidUTF8(hostile, "\uFFFD"); back["stderr"] != want {
		t.Errorf("decoded %q, want %q", back["stderr"], want)
	}
}
