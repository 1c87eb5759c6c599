package workspace

// watchEvents starts a reader that hands each event to see, in order. stop closes the channel and waits until
// the reader has seen every event sent on it.
func watchEvents(see func(Event)) (events chan Event, stop func()) {
	events = make(chan Event)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			see(ev)
		}
	}()
	return events, func() {
		close(events)
		<-done
	}
}
