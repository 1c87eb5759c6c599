package tui

import (
	"context"
	"log"
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

func (c *ProgramContext) logf(format string, a ...any) {
	if c.Log != nil {
		c.Log.Printf(format, a...)
	}
}
