package stargazer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes a task in the published JSON format (unconverted for synthetic tasks, as generated).
func WriteFile(path string, t *Task) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("stargazer: cannot create %s: %w", dir, err)
		}
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("stargazer: cannot write task: %w", err)
	}
	return nil
}
