package jail

import "errors"

// The Config goes through the gate in a small binary form of its own rather than JSON: the child decodes it
// with a few loops, where encoding/json's reflection costs a fresh process a good part of a millisecond (its code
// and tables are paged in for one use). Every field, in the order of the struct: a bool as one byte, an int as
// 8 bytes little-endian, a string as its length (4 bytes) and its bytes, a list as its length and its elements,
// Filter as a presence byte and then its bytes. TestConfigRoundTrip sets every field and checks that it comes
// back, so a field added to Config must be added here too.

// MarshalConfig encodes cfg for UnmarshalConfig.
func MarshalConfig(cfg *Config) []byte {
	var e encoder
	e.bool(cfg.Namespaces)
	e.bool(cfg.UserNS)
	e.string(cfg.Star)
	e.string(cfg.Solution)
	e.string(cfg.Bin)
	e.int(len(cfg.Binds))
	for _, b := range cfg.Binds {
		e.string(b.Src)
		e.string(b.Dst)
		e.bool(b.Writable)
	}
	e.strings(cfg.Mask)
	e.int(int(cfg.TmpBytes))
	e.int(int(cfg.MemoryBytes))
	e.int(cfg.Processes)
	e.int(int(cfg.FileBytes))
	e.int(cfg.OpenFiles)
	e.int(cfg.UID)
	e.int(cfg.GID)
	e.int(cfg.CPU)
	e.string(cfg.Dir)
	e.bool(cfg.Argv != nil)
	e.strings(cfg.Argv)
	e.strings(cfg.Env)
	e.bool(cfg.Filter != nil)
	e.string(string(cfg.Filter))
	e.bool(cfg.Trace)
	for _, n := range []int{cfg.Sys.Seccomp, cfg.Sys.Setns, cfg.Sys.OpenTree, cfg.Sys.MoveMount, cfg.Sys.MountSetattr,
		cfg.Sys.CloseRange, cfg.Sys.OPath} {
		e.int(n)
	}
	return e.b
}

// errConfig says that the encoded configuration is cut short or malformed.
var errConfig = errors.New("the configuration is malformed")

// UnmarshalConfig decodes what MarshalConfig encoded into cfg.
func UnmarshalConfig(b []byte, cfg *Config) error {
	d := decoder{b: b}
	cfg.Namespaces = d.bool()
	cfg.UserNS = d.bool()
	cfg.Star = d.string()
	cfg.Solution = d.string()
	cfg.Bin = d.string()
	if n := d.count(); n > 0 {
		cfg.Binds = make([]BindMount, n)
		for i := range cfg.Binds {
			cfg.Binds[i] = BindMount{Src: d.string(), Dst: d.string(), Writable: d.bool()}
		}
	}
	cfg.Mask = d.strings()
	cfg.TmpBytes = int64(d.int())
	cfg.MemoryBytes = int64(d.int())
	cfg.Processes = d.int()
	cfg.FileBytes = int64(d.int())
	cfg.OpenFiles = d.int()
	cfg.UID = d.int()
	cfg.GID = d.int()
	cfg.CPU = d.int()
	cfg.Dir = d.string()
	hasArgv := d.bool()
	cfg.Argv = d.strings()
	if hasArgv && cfg.Argv == nil {
		cfg.Argv = []string{}
	}
	cfg.Env = d.strings()
	hasFilter := d.bool()
	if filter := d.string(); hasFilter {
		cfg.Filter = []byte(filter)
	}
	cfg.Trace = d.bool()
	for _, n := range []*int{&cfg.Sys.Seccomp, &cfg.Sys.Setns, &cfg.Sys.OpenTree, &cfg.Sys.MoveMount,
		&cfg.Sys.MountSetattr, &cfg.Sys.CloseRange, &cfg.Sys.OPath} {
		*n = d.int()
	}
	if d.bad || len(d.b) != 0 {
		return errConfig
	}
	return nil
}

type encoder struct{ b []byte }

func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *encoder) int(v int) { e.b = appendLE64(e.b, uint64(int64(v))) }

func (e *encoder) string(s string) {
	e.b = appendLE32(e.b, uint32(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) strings(l []string) {
	e.int(len(l))
	for _, s := range l {
		e.string(s)
	}
}

// decoder reads what encoder wrote; past the end, or on a length that does not fit, it sets bad and returns
// zero values.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) take(n int) []byte {
	if d.bad || n < 0 || n > len(d.b) {
		d.bad = true
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) bool() bool {
	p := d.take(1)
	return p != nil && p[0] == 1
}

func (d *decoder) int() int {
	p := d.take(8)
	if p == nil {
		return 0
	}
	v := int64(le64(p))
	if int64(int(v)) != v { // past the range of int (a 32-bit platform)
		d.bad = true
		return 0
	}
	return int(v)
}

// count reads a list's length, which cannot exceed the bytes left (every element takes at least one).
func (d *decoder) count() int {
	n := d.int()
	if n < 0 || n > len(d.b) {
		d.bad = true
		return 0
	}
	return n
}

func (d *decoder) string() string {
	p := d.take(4)
	if p == nil {
		return ""
	}
	return string(d.take(int(le32(p))))
}

func (d *decoder) strings() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.string()
	}
	return l
}
