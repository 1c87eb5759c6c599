package slurm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// probeValid is how long a successful probe of a data directory is trusted.
const probeValid = 24 * time.Hour

// probe checks that a node of the partition sees the data directory: a one-minute job reads a random token
// from a file the controller writes under home and writes it back beside. A success is remembered (per
// partition) for probeValid, so it costs one job a day. A node that cannot see the file fails the job, or the
// token never comes back: the run is refused with what to do.
func probe(ctx context.Context, b *Backend, home string) error {
	dir := filepath.Join(home, "slurm", "probe")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	key := strings.NewReplacer("/", "_", " ", "_").Replace(fmt.Sprintf("%s_%s_%s_%s", b.Partition, b.Account, b.QOS, strings.Join(b.Extra, "_")))
	ok := filepath.Join(dir, "ok-"+key)
	if fi, err := os.Stat(ok); err == nil && time.Since(fi.ModTime()) < probeValid {
		return nil
	}
	token := randomHex(16)
	in, out := filepath.Join(dir, "token-"+token), filepath.Join(dir, "seen-"+token)
	if err := writeFileSync(in, []byte(token), 0o600); err != nil {
		return err
	}
	defer os.Remove(in)
	defer os.Remove(out)
	args := []string{"--job-name=transitbench-probe", "--nodes=1", "--ntasks=1", "--cpus-per-task=1", "--mem=64M",
		"--time=1", "--output=/dev/null", "--wrap", fmt.Sprintf("cp %s %s", shellQuote(in), shellQuote(out))}
	for flag, v := range map[string]string{"--partition=": b.Partition, "--account=": b.Account, "--qos=": b.QOS} {
		if v != "" {
			args = append(args, flag+v)
		}
	}
	args = append(args, b.Extra...)
	id, err := sbatch(ctx, args, "")
	if err != nil {
		return err
	}
	for {
		if b, err := os.ReadFile(out); err == nil && string(b) == token {
			return writeFileSync(ok, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o600)
		}
		q, err := slurmCommand(ctx, "squeue", "-h", "-j", id, "-o", "%T")
		if err != nil && ctx.Err() != nil {
			_ = scancel(context.Background(), id)
			return ctx.Err()
		} else if err != nil {
			q = "" // squeue refuses the id of a job the controller has forgotten: it ended
		}
		if strings.TrimSpace(q) == "" {
			if b, err := os.ReadFile(out); err == nil && string(b) == token {
				continue
			}
			return fmt.Errorf("slurm: a node of the cluster cannot see the data directory %s (probe job %s ended %s without "+
				"reading it): put the data directory on a filesystem the nodes share (TRANSITBENCH_HOME), or choose a "+
				"partition whose nodes mount it", home, id, finalState(ctx, id))
		}
		select {
		case <-ctx.Done():
			_ = scancel(context.Background(), id)
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
