package data

import (
	"errors"
	"strings"
	"testing"

	"transitbench/engine/lc"
)

// badInput is a text a parser must refuse: the error must wrap is and say want.
type badInput struct {
	name, text, want string
	is               error
}

// checkBadInputs runs parse on each case's text, labelled file, and checks that it fails with an error that wraps
// the case's sentinel, says what the case wants and names the file.
func checkBadInputs(t *testing.T, file string, parse func(text, name string) (*lc.LightCurve, error), cases []badInput) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.text, file)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) {
				t.Errorf("error %q: want %v saying %q and naming the file", err, tc.is, tc.want)
			}
		})
	}
}

// parsedOrRefused parses the fuzzed bytes b as file with parse. A refusal must be one line of at most 800 bytes
// naming the file, and gives nil; a light curve read must pass checkParsed, and is returned.
func parsedOrRefused(t *testing.T, parse func(text, name string) (*lc.LightCurve, error), b []byte, file string) *lc.LightCurve {
	t.Helper()
	c, err := parse(string(b), file)
	if err != nil {
		if !strings.Contains(err.Error(), file) || len(err.Error()) > 800 || strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %q: want one line of at most 800 bytes naming the file", err)
		}
		return nil
	}
	checkParsed(t, c)
	return c
}
