package slurm

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"transitbench/workspace"
)

// BenchmarkDevLocalVsSlurm runs the Go starter on all 196 dev stars locally (two stars at once on this
// machine) and as a job array (chunks of TRANSITBENCH_BENCH_CHUNK stars, default 25, one star at a time per
// task), and reports both wall times,
// their ratio and the overhead per star the backend adds. Run it once, on a machine with the test cluster:
//
//	go test -run '^$' -bench DevLocalVsSlurm -benchtime 1x ./workspace/slurm/
func BenchmarkDevLocalVsSlurm(b *testing.B) {
	ws, home := clusterWorkspace(b)
	ctx := context.Background()
	var log logLines
	for range b.N {
		// A first short run of each builds the Go solution (the slurm tasks build their copy of it), so neither
		// timed run pays for the first build.
		if _, err := devRun(b, ctx, ws, workspace.RunOptions{Home: home, Limit: 1, Fresh: true}, nil); err != nil {
			b.Fatal(err)
		}
		if _, err := devRun(b, ctx, ws, workspace.RunOptions{Home: home, Limit: 1, Fresh: true, Backend: testBackend(1, &log)}, nil); err != nil {
			b.Fatalf("%v\n%s", err, log.String())
		}
		start := time.Now()
		local, err := devRun(b, ctx, ws, workspace.RunOptions{Home: home, Workers: 2, Fresh: true}, nil)
		if err != nil {
			b.Fatal(err)
		}
		localWall := time.Since(start)
		start = time.Now()
		sl, err := devRun(b, ctx, ws, workspace.RunOptions{Home: home, Fresh: true, Backend: testBackend(benchChunk(), &log)}, nil)
		if err != nil {
			b.Fatalf("%v\n%s", err, log.String())
		}
		slurmWall := time.Since(start)
		if sl.S != local.S || sl.StarsRun != local.StarsRun {
			b.Fatalf("slurm S %.6f on %d stars, local S %.6f on %d", sl.S, sl.StarsRun, local.S, local.StarsRun)
		}
		n := float64(local.StarsRun)
		b.ReportMetric(localWall.Seconds(), "local-s")
		b.ReportMetric(slurmWall.Seconds(), "slurm-s")
		b.ReportMetric(slurmWall.Seconds()/localWall.Seconds(), "slurm/local")
		b.ReportMetric((slurmWall-localWall).Seconds()*1000/n, "overhead-ms/star")
	}
}

// benchChunk is the chunk size of the benchmark's array: TRANSITBENCH_BENCH_CHUNK, else DefaultChunk.
func benchChunk() int {
	if n, err := strconv.Atoi(os.Getenv("TRANSITBENCH_BENCH_CHUNK")); err == nil && n > 0 {
		return n
	}
	return DefaultChunk
}

// BenchmarkSubmitLatency measures what a chunk costs before and after its stars: the time from sbatch to the
// end of a one-task array that does nothing, as the controller sees it (squeue polled every 100 ms).
func BenchmarkSubmitLatency(b *testing.B) {
	needCluster(b)
	ctx := context.Background()
	for range b.N {
		name := "transitbench-latency-" + randomHex(3)
		start := time.Now()
		if _, err := sbatch(ctx, []string{"--job-name=" + name, "--array=0", "--mem=16M", "--time=1", "--output=/dev/null", "--wrap=true"}, ""); err != nil {
			b.Fatal(err)
		}
		for {
			q, err := queued(ctx, name)
			if err != nil {
				b.Fatal(err)
			}
			if len(q) == 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/task")
	}
}
