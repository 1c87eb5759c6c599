package report

import (
	"context"
	"io"
)

func (s *Site) hasRV() bool { return false }

func (s *Site) writeRV(ctx context.Context, w io.Writer, live bool) error {
	return render(w, "rv", "RV track", struct{}{}, live, 0)
}
