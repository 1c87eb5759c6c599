package jail

import "strconv"

// The child formats its few messages itself rather than with fmt: fmt (with os, reflect and time, which it
// imports) would make the child program larger and its start slower, a cost every star pays for text that
// only a failed setup shows.

// sprintf is fmt.Sprintf for the verbs the child uses: %s, %d, %v and %w of strings, integers and errors, and
// %%. Another verb or argument type is written as it comes, in brackets.
func sprintf(format string, args ...any) string {
	b := make([]byte, 0, len(format)+32)
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b = append(b, c)
			continue
		}
		i++
		if format[i] == '%' {
			b = append(b, '%')
			continue
		}
		if len(args) == 0 {
			b = append(b, "%!"...)
			b = append(b, format[i])
			continue
		}
		b = appendArg(b, args[0])
		args = args[1:]
	}
	return string(b)
}

func appendArg(b []byte, a any) []byte {
	switch v := a.(type) {
	case string:
		return append(b, v...)
	case error:
		return append(b, v.Error()...)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10)
	case uintptr:
		return strconv.AppendUint(b, uint64(v), 10)
	}
	return append(b, "[?]"...)
}

// errorf is fmt.Errorf for the verbs of sprintf: the error of its first %w is what it wraps (errors.Is and As
// see through it).
func errorf(format string, args ...any) error {
	e := &formatError{msg: sprintf(format, args...)}
	n := 0
	for i := 0; i+1 < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if format[i] == '%' {
			continue
		}
		if format[i] == 'w' && n < len(args) {
			if err, ok := args[n].(error); ok {
				e.err = err
				break
			}
		}
		n++
	}
	return e
}

// formatError is errorf's error.
type formatError struct {
	msg string
	err error
}

func (e *formatError) Error() string { return e.msg }
func (e *formatError) Unwrap() error { return e.err }

// pathError is what the os package says of a failed operation op on path: "op path: err".
func pathError(op, path string, err error) error { return errorf("%s %s: %w", op, path, err) }

// Little-endian integers, as encoding/binary writes them (which would bring reflect into the child).

func appendLE32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func appendLE64(b []byte, v uint64) []byte {
	return appendLE32(appendLE32(b, uint32(v)), uint32(v>>32))
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
