package jail

import (
	"reflect"
	"testing"
)

// fillConfig sets every field of a Config, nested ones included, to a value that is not its zero value and
// differs from field to field.
func fillConfig(t *testing.T) Config {
	var cfg Config
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		n++
		switch v.Kind() {
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int64:
			v.SetInt(int64(n) * 1_000_003)
		case reflect.String:
			v.SetString("s" + string(rune('a'+n%26)) + "\x00ü")
		case reflect.Slice:
			s := reflect.MakeSlice(v.Type(), 2, 2)
			for i := range 2 {
				fill(s.Index(i))
			}
			v.Set(s)
		case reflect.Uint8:
			v.SetUint(uint64(n))
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		default:
			t.Fatalf("Config has a field of kind %s that the test cannot fill: teach it, and MarshalConfig", v.Kind())
		}
	}
	fill(reflect.ValueOf(&cfg).Elem())
	return cfg
}

// TestConfigRoundTrip: every field of a Config comes back from MarshalConfig and UnmarshalConfig (a field added
// to Config and forgotten by the codec fails here), and so do the nil Argv of a probe and the nil Filter of a
// run without seccomp.
func TestConfigRoundTrip(t *testing.T) {
	full := fillConfig(t)
	for _, cfg := range []Config{full, {UID: -1, GID: -1, CPU: -1}} {
		var got Config
		if err := UnmarshalConfig(MarshalConfig(&cfg), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, cfg) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, cfg)
		}
	}
	empty := Config{Argv: []string{}, Filter: []byte{}}
	var got Config
	if err := UnmarshalConfig(MarshalConfig(&empty), &got); err != nil || got.Argv == nil || got.Filter == nil {
		t.Errorf("empty Argv and Filter came back as %#v, %#v (%v): want empty, not nil", got.Argv, got.Filter, err)
	}
}

// TestConfigTruncated: every proper prefix of an encoded Config, and the whole with a byte more, is refused.
func TestConfigTruncated(t *testing.T) {
	cfg := fillConfig(t)
	b := MarshalConfig(&cfg)
	for n := range len(b) {
		var got Config
		if err := UnmarshalConfig(b[:n], &got); err == nil {
			t.Fatalf("the first %d of %d bytes decoded without an error", n, len(b))
		}
	}
	var got Config
	if err := UnmarshalConfig(append(b, 0), &got); err == nil {
		t.Errorf("a trailing byte was accepted")
	}
}
