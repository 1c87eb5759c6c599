package tui

import (
	"context"
	"fmt"
	"log"

	"transitbench/internal/termtext"
)

// ProgramContext is what every screen shares, passed by pointer: the terminal size, the styles, the key map,
// the backend and the program's lifetime context (cancelled when the program quits).
type ProgramContext struct {
	Width, Height int
	Styles        *Styles
	Keys          *KeyMap
	Backend       Backend
	Ctx           context.Context
	Log           *log.Logger
}

// logf writes a line to the log file (read with tail and cat): what it quotes (a build's errors, a task file's
// name) shows control characters as escapes (termtext.Text).
func (c *ProgramContext) logf(format string, a ...any) {
	if c.Log != nil {
		c.Log.Print(termtext.Text(fmt.Sprintf(format, a...)))
	}
}
