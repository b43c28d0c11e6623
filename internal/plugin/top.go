package plugin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// defaultTopInterval is how often top refreshes: often enough to follow a
// run, and a light load on the API server (one list and one proxied GET
// per loader pod per interval).
const defaultTopInterval = 2 * time.Second

// minScrapeTimeout bounds a scrape when the interval is shorter: a loader
// busy at full CPU may answer slowly, and the API server proxies.
const minScrapeTimeout = 5 * time.Second

type topFlags struct {
	interval time.Duration
	once     bool
}

func newTopCommand(o *options) *cobra.Command {
	f := &topFlags{}
	cmd := &cobra.Command{
		Use:   "top run/NAME | sweep/NAME",
		Short: "Watch a run or sweep live: ops/s and p99 per operation and loader, and the server",
		Long: `Watch a running BenchmarkRun or BenchmarkSweep, refreshed every --interval
(default 2s): the run's phase and progress, then per operation its ops/s,
errors/s and p99 over the last interval, per loader its ops/s (a loader
below 80% of the median of its phase's loaders is marked LAGGING), and
from loader 0 the server's connections, opcounters per second and
WiredTiger cache dirty %. The finished phases' results follow, as wait
prints them.

The numbers come from the loaders' /metrics, read through the API
server's pod proxy (GET pods/NAME:PORT/proxy/metrics, the port named
"metrics"), so no Prometheus is needed; this needs get on pods/proxy and
list on pods in the run's namespace. The p99 is the 99th percentile of
the successful calls between two reads, from the difference of the
latency histogram's bucket counts, interpolated within a bucket as
PromQL's histogram_quantile() does: it is as fine as the buckets. The
first frame comes at once, from one read: totals, and "-" for rates and
p99 until the next.

When the live numbers cannot be read (proxying is forbidden, the loaders
do not answer, no loader is running yet), the frame says why and shows
the run's status: its phase, current phase and finished phases' results.

A sweep shows its phase and cells done of total, and each run it has
active, compact.

On a terminal, each frame replaces the last; otherwise (and with --once)
frames are printed one after another. --once prints one frame and exits,
for scripts: it reads the loaders twice, --interval apart, so its frame
has rates.

Exit codes: top exits when the run or sweep ends, with wait's verdict:
0 it succeeded, 1 it failed (the reason goes to stderr), 3 regressed,
4 not valid; 2 no verdict: a usage error, the run or sweep does not
exist, the API server could not be asked, or top was interrupted. With
--once, 0 when it has not ended.`,
		Example: `  kubectl mongobench top run/demo
  kubectl mongobench top sweep/study --interval 5s
  kubectl mongobench top run/demo --once > frame.txt`,
		Args: refArg(KindRun, KindSweep),
		RunE: onRef(func(ctx context.Context, ref Ref) error { return o.top(ctx, ref, f) }, KindRun, KindSweep),
	}
	cmd.Flags().DurationVar(&f.interval, "interval", defaultTopInterval, "how often to refresh")
	cmd.Flags().BoolVar(&f.once, "once", false, "print one frame and exit (no screen clearing)")
	return cmd
}

// topped is what top follows: a run or a sweep.
type topped interface {
	// read reads the resource and, while it has not ended, the live
	// numbers of its running loaders.
	read(ctx context.Context) error
	write(w io.Writer, at time.Time, every time.Duration) error
	ended() bool
	// scraped reports whether the last read read any loader.
	scraped() bool
	state() string
	verdict() error
}

func (o *options) top(ctx context.Context, ref Ref, f *topFlags) error {
	if f.interval <= 0 {
		return usageErrorf("--interval must be positive, not %s", f.interval)
	}
	c, err := newAPIClient(o.flags)
	if err != nil {
		return err
	}
	s := &topSession{o: o, c: c, interval: f.interval, prev: map[types.UID]*scrape{}}
	var t topped = &runTop{s: s, ref: ref}
	if ref.Kind == KindSweep {
		t = &sweepTop{s: s, ref: ref}
	}
	out := &frameWriter{out: o.streams.Out, tty: !f.once && isTerminal(o.streams.Out)}
	interrupted := func() error {
		return withCode(ExitNoVerdict, fmt.Errorf("interrupted while watching %s (%s)", ref, t.state()))
	}
	for first := true; ; first = false {
		if err := t.read(ctx); err != nil {
			if ctx.Err() != nil {
				return interrupted()
			}
			return err
		}
		s.turn()
		if f.once && first && !t.ended() && t.scraped() {
			// --once: a second read an interval later, so that the one
			// frame has rates.
			if o.pauseFor(ctx, f.interval) != nil {
				return interrupted()
			}
			continue
		}
		var b bytes.Buffer
		if err := t.write(&b, o.now(), f.interval); err != nil {
			return err
		}
		out.write(b.String())
		if t.ended() {
			return t.verdict()
		}
		if f.once {
			return nil
		}
		if o.pauseFor(ctx, f.interval) != nil {
			return interrupted()
		}
	}
}

// pauseFor waits d, or until ctx is done; options.pause replaces it in
// tests.
func (o *options) pauseFor(ctx context.Context, d time.Duration) error {
	if o.pause != nil {
		return o.pause(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("pause between frames: %w", ctx.Err())
	case <-t.C:
		return nil
	}
}

// frameWriter prints frames: on a terminal each after clearing the
// screen, elsewhere one after another, a blank line between.
type frameWriter struct {
	out io.Writer
	tty bool
	n   int
}

func (w *frameWriter) write(frame string) {
	switch {
	case w.tty:
		frame = clearScreen + frame
	case w.n > 0:
		frame = "\n" + frame
	}
	w.n++
	// Frames are for people; a closed stdout must not hide the verdict,
	// which is the exit code.
	_, _ = io.WriteString(w.out, frame)
}

// isTerminal reports whether w is a terminal: only then does top clear
// the screen, so that redirected output holds no escape sequences.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// topSession holds the previous frame's scrapes, by pod UID, to compute
// rates.
type topSession struct {
	o        *options
	c        *apiClient
	interval time.Duration
	prev     map[types.UID]*scrape
	next     map[types.UID]*scrape
}

// turn makes this read's scrapes the previous ones of the next read.
func (s *topSession) turn() {
	if s.next != nil {
		s.prev, s.next = s.next, nil
	}
}

// live reads the live numbers of a run that has not ended: nil and why
// when there are none.
func (s *topSession) live(ctx context.Context, run *benchv1.BenchmarkRun) (*liveView, string) {
	if s.next == nil {
		s.next = map[types.UID]*scrape{}
	}
	pods, err := s.c.loaderPods(ctx, run)
	if err != nil {
		return nil, s.why(err)
	}
	if len(pods) == 0 {
		if run.Status.CurrentPhase != "" {
			return nil, fmt.Sprintf("no loader pod of phase %s is running", run.Status.CurrentPhase)
		}
		return nil, "no loader pod is running"
	}
	got := s.scrapeAll(ctx, pods)
	var loaders []scraped
	var problems []string
	for i, g := range got {
		if g.err != nil {
			problems = append(problems, s.why(g.err))
			continue
		}
		uid := pods[i].UID
		s.next[uid] = g.s
		loaders = append(loaders, scraped{prev: s.prev[uid], cur: g.s})
	}
	if len(loaders) == 0 {
		sort.Strings(problems)
		why := problems[0]
		if len(problems) > 1 {
			why += fmt.Sprintf(" (and %d more loader pods)", len(problems)-1)
		}
		return nil, why
	}
	v := newLiveView(loaders, s.o.now())
	v.problems = problems
	return v, ""
}

type scrapeResult struct {
	s   *scrape
	err error
}

// scrapeAll reads every pod's /metrics at once, so a frame's loaders are
// read at nearly the same moment and a slow one does not delay the rest.
func (s *topSession) scrapeAll(ctx context.Context, pods []corev1.Pod) []scrapeResult {
	ctx, cancel := context.WithTimeout(ctx, max(s.interval, minScrapeTimeout))
	defer cancel()
	out := make([]scrapeResult, len(pods))
	var wg sync.WaitGroup
	for i := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := s.c.loaderMetrics(ctx, &pods[i])
			if err != nil {
				out[i].err = err
				return
			}
			sc, err := parseScrape(bytes.NewReader(b))
			if err != nil {
				out[i].err = fmt.Errorf("pod %s: %w", pods[i].Name, err)
				return
			}
			sc.pod, sc.at = pods[i].Name, s.o.now()
			out[i].s = sc
		}()
	}
	wg.Wait()
	return out
}

// why says why live numbers are missing; a refusal says what top needs.
func (s *topSession) why(err error) string {
	if apierrors.IsForbidden(err) {
		return fmt.Sprintf("forbidden (top needs list on pods and get on pods/proxy in namespace %q): %v", s.c.namespace, err)
	}
	return err.Error()
}

// runTop follows a run.
type runTop struct {
	s     *topSession
	ref   Ref
	frame runFrame
}

func (t *runTop) read(ctx context.Context) error {
	run, err := t.s.c.getRun(ctx, t.ref.Name)
	if err != nil {
		return err
	}
	t.frame = runFrame{ref: t.ref, status: &run.Status}
	if !finished(&run.Status) {
		t.frame.live, t.frame.missing = t.s.live(ctx, run)
	}
	return nil
}

func (t *runTop) write(w io.Writer, at time.Time, every time.Duration) error {
	return writeRunFrame(w, &t.frame, at, every)
}
func (t *runTop) ended() bool   { return t.frame.status != nil && finished(t.frame.status) }
func (t *runTop) scraped() bool { return t.frame.live != nil }
func (t *runTop) state() string {
	if t.frame.status == nil {
		return "not read yet"
	}
	return stateOf(t.frame.status)
}
func (t *runTop) verdict() error { return t.s.o.verdict(t.ref, t.frame.status) }

// sweepTop follows a sweep and its active runs.
type sweepTop struct {
	s     *topSession
	ref   Ref
	frame sweepFrame
}

func (t *sweepTop) read(ctx context.Context) error {
	sw, err := t.s.c.getSweep(ctx, t.ref.Name)
	if err != nil {
		return err
	}
	t.frame = sweepFrame{ref: t.ref, status: &sw.Status}
	if sweepFinished(&sw.Status) {
		return nil
	}
	runs, err := t.s.c.sweepRuns(ctx, sw)
	if err != nil {
		t.frame.missing = t.s.why(err)
		return nil
	}
	cells := map[string]string{}
	for _, c := range sw.Status.Cells {
		for _, r := range c.Runs {
			cells[r.Name] = c.Name
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Name < runs[j].Name })
	for i := range runs {
		r := &runs[i]
		if finished(&r.Status) {
			continue
		}
		rf := sweepRunFrame{cell: cells[r.Name], runFrame: runFrame{ref: Ref{Kind: KindRun, Name: r.Name}, status: &r.Status}}
		rf.live, rf.missing = t.s.live(ctx, r)
		t.frame.runs = append(t.frame.runs, rf)
	}
	return nil
}

func (t *sweepTop) write(w io.Writer, at time.Time, every time.Duration) error {
	return writeSweepFrame(w, &t.frame, at, every)
}
func (t *sweepTop) ended() bool { return t.frame.status != nil && sweepFinished(t.frame.status) }
func (t *sweepTop) scraped() bool {
	for _, r := range t.frame.runs {
		if r.live != nil {
			return true
		}
	}
	return false
}
func (t *sweepTop) state() string {
	if t.frame.status == nil {
		return "not read yet"
	}
	return sweepState(t.frame.status)
}
func (t *sweepTop) verdict() error { return t.s.o.sweepVerdict(t.ref, t.frame.status) }

var (
	_ topped = (*runTop)(nil)
	_ topped = (*sweepTop)(nil)
)
