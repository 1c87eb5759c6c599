package mcpserver

import (
	"testing"
)

// The latency of a tool call through the protocol (the SDK's in-memory transport, JSON both ways) on a server
// whose sets are loaded, as an agent sees it after its first call. Compare with one 'transitbench' process per
// call (README, "Agents").
func BenchmarkStarInfo(b *testing.B) {
	f := newFixture(b, "survey")
	args := map[string]any{"star": "dev-0000"}
	callOK(b, f.cs, "star_info", args, &StarInfoOut{}) // loads the dev set
	for b.Loop() {
		callOK(b, f.cs, "star_info", args, &StarInfoOut{})
	}
}

// BenchmarkBLS is a BLS search of a dev star on the default grid (0.5 d to a third of the span, as 'transitbench
// bls FILE' searches).
func BenchmarkBLS(b *testing.B) {
	f := newFixture(b, "survey")
	args := map[string]any{"star": "dev-0000"}
	callOK(b, f.cs, "star_info", args, &StarInfoOut{})
	for b.Loop() {
		callOK(b, f.cs, "bls", args, &BLSOut{})
	}
}
