// Package termtext makes text that a solution, a task or data file, or a remote client wrote safe to show on a
// terminal (and in any other view): control characters become visible escapes (`\x1b`, `\r`, `\x07`, `\u009b`,
// `\u202e`) and invalid UTF-8 becomes U+FFFD, so such text cannot write the clipboard (OSC 52), retitle the
// window (OSC 0), clear the screen (CSI 2J), plant links (OSC 8), overwrite lines (CR) or reorder what is shown
// (bidi overrides). Text keeps newlines and tabs, Line escapes them too (a table cell, a name); Styled keeps
// the SGR colour sequences a view's own styling adds and escapes every other escape; Writer applies Text to a
// stream; JSON rewrites an encoded JSON document so that it holds no raw control character either, its strings
// decoding to the same text. It imports nothing of the project, so every front end can use it.
package termtext
