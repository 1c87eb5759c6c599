// Package archtest holds no code: its test checks the module's imports against the dependency rules of
// docs/ARCHITECTURE.md (which packages of the project each package may import, and that engine does no file
// I/O), so that `go test ./...` fails when a change breaks them.
package archtest
