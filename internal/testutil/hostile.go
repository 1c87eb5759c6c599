package testutil

// HostileText is text a solution, a task file or a client could write to attack the terminal that shows it:
// OSC 52 (set the clipboard), OSC 0 (retitle the window), CSI 2J (clear the screen), OSC 8 (a link), CR
// (overwrite the line), BEL, DEL, an 8-bit CSI (U+009B), the bidi overrides U+202E and U+2066, an invalid UTF-8
// byte and an SGR colour; then a newline and a tab, which multi-line views keep. Tests print it through every
// view and check with termtext.HasControl that none of it reaches the output raw.
const HostileText = "evil\x1b]52;c;aGFja2Vk\x07\x1b]0;owned\x1b\\\x1b[2J\x1b]8;;http://x.invalid/\x1b\\link\x1b]8;;\x1b\\" +
	"\rover\x7f\u009b2J\u202eesrever\u2066\xff\x1b[31mred\nline2\tcol"
