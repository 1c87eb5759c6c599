// Package workspace manages the contestant's box: TASK.md, the labelled dev stars, the solution and its state;
// it runs the dev loop, freezes a solution by content hash and grades the frozen copy once on the hidden sets.
package workspace
