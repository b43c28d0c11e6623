package telemetry

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// A process the Sampler cannot reach, or has no way to reach, costs errors
// in the report, never a failure, a panic or a hang: Stop returns within
// the call timeout. However long the phase, the last sample (taken at Stop)
// fails and counts, so nothing below depends on the pace of the machine;
// the bound on Stop is far enough from the call timeout for a busy machine
// and far below the driver's 30 s server selection, which an unbounded call
// would wait out.
func TestSamplerUnreachable(t *testing.T) {
	refused := "mongodb://127.0.0.1:1/?directConnection=true&serverSelectionTimeoutMS=100"
	s := Start(context.Background(), Config{
		Interval: 20 * time.Millisecond,
		Timeout:  300 * time.Millisecond,
		Processes: []Process{
			{Role: "shard", Pod: "refused", URI: refused},
			{Role: "shard", Pod: "nothing"},
			{Role: "mongos", Pod: "bad-uri", URI: "http://user:secret@example"},
		},
		Collection: &CollectionTarget{URI: refused, Database: "ycsb", Collection: "usertable", Every: 30 * time.Millisecond},
	})
	time.Sleep(400 * time.Millisecond) // the phase: a few ticks, none of them needed below
	begin := time.Now()
	r := s.Stop()
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("Stop took %v", d)
	}
	if s.Stop() != r {
		t.Error("a second Stop returned another report")
	}
	if len(r.Processes) != 3 || r.End.Before(r.Start) {
		t.Fatalf("report %+v", r)
	}
	for i, want := range []string{"serverStatus of refused: ", "no client and no URI", "connect to bad-uri: "} {
		p := r.Processes[i]
		t.Logf("%s: %d errors, last: %s", p.Pod, p.Errors, p.LastError)
		if strings.Contains(p.LastError, "secret") {
			t.Errorf("%s: the error shows the URI's password: %s", p.Pod, p.LastError)
		}
		if p.Errors == 0 || !strings.Contains(p.LastError, want) || p.Series.Samples() != 0 {
			t.Errorf("%s: %d errors, last %q, %d samples; want errors, the last with %q", p.Pod, p.Errors, p.LastError, p.Series.Samples(), want)
		}
		if sum := p.Summary(); sum.Pod != p.Pod || sum.Samples != 0 || sum.PeakConnections != nil {
			t.Errorf("%s: summary %+v", p.Pod, sum)
		}
	}
	if c := r.Collection; c == nil || c.Final != nil || c.Errors == 0 || !strings.Contains(c.LastError, "$collStats of ycsb.usertable") {
		t.Errorf("collection report %+v", c)
	}
}

// A process that never answers during a phase shorter than the call
// timeout (server selection waits on: nothing refuses it in time) still
// shows why it has no samples: the last sample's timeout is an error, and
// Stop waits no longer than that timeout (bounded at 10 s, a busy machine's
// margin, well below the 30 s server selection the timeout cuts short).
func TestSamplerSilentDuringAShortPhase(t *testing.T) {
	// The driver's default server selection timeout (30 s) outlasts the
	// call timeout.
	silent := "mongodb://127.0.0.1:1/?directConnection=true"
	s := Start(context.Background(), Config{
		Interval:   time.Second,
		Timeout:    300 * time.Millisecond,
		Processes:  []Process{{Role: "shard", Pod: "silent", URI: silent}},
		Collection: &CollectionTarget{URI: silent, Database: "ycsb", Collection: "usertable"},
	})
	time.Sleep(50 * time.Millisecond) // the phase; the first sample may or may not have begun
	begin := time.Now()
	r := s.Stop()
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("Stop took %v", d)
	}
	p := r.Processes[0]
	if p.Errors == 0 || !strings.Contains(p.LastError, "serverStatus of silent: ") || p.Series.Samples() != 0 {
		t.Errorf("%d errors, last %q, %d samples", p.Errors, p.LastError, p.Series.Samples())
	}
	if c := r.Collection; c == nil || c.Final != nil || c.Errors == 0 || c.LastError == "" {
		t.Errorf("collection report %+v", c)
	}
}

// Run samples until its context ends; with nothing to sample the report is
// empty and nothing fails.
func TestRunNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	r := Run(ctx, Config{})
	if len(r.Processes) != 0 || r.Collection != nil || r.End.Before(r.Start) {
		t.Errorf("report %+v", r)
	}
}

// Collection statistics taken every tick for a long phase thin to at most
// MaxSeriesPoints entries, evenly spaced from the first tick on.
func TestCollectionGrowthThinning(t *testing.T) {
	for _, ticks := range []int{1, 119, 120, 121, 500, 5000} {
		c := &collectionSampler{stride: 1}
		for tick := range ticks {
			if c.due() {
				c.grow(CollectionStats{Time: t0.Add(time.Duration(tick) * time.Second)})
			}
		}
		g := c.payload.Growth
		if len(g) == 0 || len(g) >= results.MaxSeriesPoints || !g[0].Time.Equal(t0) {
			t.Fatalf("%d ticks: %d entries, first %v", ticks, len(g), g[0].Time)
		}
		step := time.Duration(c.stride) * time.Second
		for i := 1; i < len(g); i++ {
			if d := g[i].Time.Sub(g[i-1].Time); d != step {
				t.Errorf("%d ticks: entries %d and %d are %v apart, want %v", ticks, i-1, i, d, step)
			}
		}
		// The last kept entry is at most one stride before the last tick.
		if last := g[len(g)-1].Time.Sub(t0); last <= time.Duration(ticks-1-c.stride)*time.Second {
			t.Errorf("%d ticks: last entry at %v, stride %d", ticks, last, c.stride)
		}
	}
}
