package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"transitbench/grader"
)

// A run (dev or grade) streams its events as messages: the work runs in a goroutine that writes to a channel,
// and waitNext reads one message from it; the screen re-issues waitNext after each event (glow's "emit a message
// per item and re-issue the command" pattern). The channel is closed after the final runDoneMsg.

// runEventMsg is one finished star.
type runEventMsg struct {
	ch    <-chan tea.Msg
	event RunEvent
}

// runDoneMsg ends a run: Summary for a dev run, Grade for a grading; err when it failed or was cancelled.
type runDoneMsg struct {
	summary *grader.Summary
	grade   *GradeResult
	err     error
}

// startRun starts work in a goroutine and returns the command that waits for its first message. work must
// return when ctx is cancelled.
func startRun(ctx context.Context, work func(ctx context.Context, events chan<- RunEvent) runDoneMsg) tea.Cmd {
	ch := make(chan tea.Msg, 64)
	go func() {
		events := make(chan RunEvent)
		done := make(chan runDoneMsg, 1)
		go func() { done <- work(ctx, events); close(events) }()
		for e := range events {
			ch <- runEventMsg{ch: ch, event: e}
		}
		ch <- <-done
		close(ch)
	}()
	return waitNext(ch)
}

// stopRun cancels a run's context, if it has one.
func stopRun(cancel context.CancelFunc) {
	if cancel != nil {
		cancel()
	}
}

// waitNext reads the next message a goroutine streams on ch (a run's events, the backend's opening), nil once
// ch is closed.
func waitNext(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}
