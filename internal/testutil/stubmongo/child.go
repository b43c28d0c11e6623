package stubmongo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

const (
	// childEnv tells a re-executed test binary to serve instead of testing.
	childEnv = "MONGOBENCH_STUBMONGO_CHILD"
	// CPUsEnv, when set (e.g. "1"), runs the child server under
	// `taskset -c $STUBMONGO_SERVER_CPUS`, so that with the benchmark itself
	// pinned to another core (`taskset -c 0 go test ...`) client and server
	// do not share a CPU.
	CPUsEnv = "STUBMONGO_SERVER_CPUS"
	// BusyEnv=1 makes the child server Busy.
	BusyEnv = "STUBMONGO_SERVER_BUSY"

	childStartTimeout = 30 * time.Second
	childStopTimeout  = 10 * time.Second
)

// RunChildIfRequested turns this process into a stub server when it was
// started by StartChild, and exits when the parent closes its stdin (or
// dies). Call it first thing in TestMain of any package that uses StartChild:
//
//	func TestMain(m *testing.M) {
//		stubmongo.RunChildIfRequested()
//		os.Exit(m.Run())
//	}
func RunChildIfRequested() {
	if os.Getenv(childEnv) != "1" {
		return
	}
	var opts []Option
	if os.Getenv(BusyEnv) == "1" {
		opts = append(opts, Busy())
		// One P: with more Ps than goroutines to run, the spare Ps'
		// threads park and are woken each time a poller yields, wake-ups
		// the busy mode exists to avoid. (Pinned to one CPU, as
		// perf-loader runs it, Go picks one P anyway.)
		runtime.GOMAXPROCS(1)
	}
	s, err := Listen("127.0.0.1:0", opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stubmongo child: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("LISTENING %s\n", s.Addr())
	// EOF on stdin: the parent closed it or exited (even killed), so the
	// child never outlives the test binary that started it.
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := s.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "stubmongo child: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Child is a stub server running in a child process (the test binary
// re-executed), so that the test process's CPU time (getrusage RUSAGE_SELF)
// is the client's alone. Its own CPU time and counters come from QueryStats.
type Child struct {
	addr   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	exited chan struct{}
	err    error // cmd.Wait's, valid once exited is closed

	once     sync.Once
	closeErr error
}

// StartChild re-executes the test binary as a stub server (see
// RunChildIfRequested, which TestMain must call) and stops it when the test
// ends.
func StartChild(tb testing.TB) *Child {
	tb.Helper()
	c, err := startChild()
	if err != nil {
		tb.Fatalf("stubmongo: %v", err)
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("stubmongo: %v", err)
		}
	})
	return c
}

func startChild() (*Child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the test binary: %w", err)
	}
	// The test flags make a binary whose TestMain lacks the hook run nothing
	// and exit, which is then reported below instead of running tests twice.
	args := []string{self, "-test.run=^$", "-test.bench=^$"}
	if cpus := os.Getenv(CPUsEnv); cpus != "" {
		taskset, err := exec.LookPath("taskset")
		if err != nil {
			return nil, fmt.Errorf("%s=%s needs taskset (util-linux): %w", CPUsEnv, cpus, err)
		}
		args = append([]string{taskset, "-c", cpus}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	c := &Child{cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", strings.Join(args, " "), err)
	}

	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				select {
				case addrc <- addr:
				default:
				}
			} else {
				_, _ = fmt.Fprintln(c.stderr, sc.Text())
			}
		}
		c.err = cmd.Wait() // only after stdout is drained, as exec requires
		close(c.exited)
	}()

	timer := time.NewTimer(childStartTimeout)
	defer timer.Stop()
	select {
	case c.addr = <-addrc:
		return c, nil
	case <-c.exited:
		return nil, fmt.Errorf("child server exited before listening (%w); does TestMain call "+
			"stubmongo.RunChildIfRequested()? output:\n%s", exitReason(c.err), c.stderr.String())
	case <-timer.C:
		_ = c.Close()
		return nil, fmt.Errorf("child server did not listen within %v; output:\n%s", childStartTimeout, c.stderr.String())
	}
}

// exitReason describes how a process that should have kept running ended.
func exitReason(waitErr error) error {
	if waitErr == nil {
		return errors.New("exit status 0")
	}
	return waitErr
}

// Addr returns the child server's "host:port".
func (c *Child) Addr() string { return c.addr }

// URI returns a connection string for driver v2.
func (c *Child) URI() string { return "mongodb://" + c.addr + "/?directConnection=true" }

// Pid returns the child's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Close stops the child (EOF on its stdin, SIGKILL after 10 s) and waits for
// it. It is safe to call more than once.
func (c *Child) Close() error {
	c.once.Do(func() {
		_ = c.stdin.Close()
		timer := time.NewTimer(childStopTimeout)
		defer timer.Stop()
		select {
		case <-c.exited:
			if c.err != nil {
				c.closeErr = fmt.Errorf("child server: %w; output:\n%s", c.err, c.stderr.String())
			}
		case <-timer.C:
			_ = c.cmd.Process.Kill()
			<-c.exited
			c.closeErr = fmt.Errorf("child server %d did not exit within %v of stdin EOF; killed it", c.Pid(), childStopTimeout)
		}
	})
	return c.closeErr
}

// Stats are a stub server's counters and the CPU time of the process serving
// them.
type Stats struct {
	Counts
	// CPU is the serving process's user + system time since it started. For
	// a Child that is the server alone; for an in-process Server it includes
	// the test itself.
	CPU time.Duration
	// Sleeps is how many times the serving process's threads blocked
	// (voluntary context switches, getrusage's ru_nvcsw): each is a
	// wake-up some client's request had to pay for.
	Sleeps int64
}

// Sub returns s - o, for a measured interval.
func (s Stats) Sub(o Stats) Stats {
	return Stats{Counts: s.Counts.Sub(o.Counts), CPU: s.CPU - o.CPU, Sleeps: s.Sleeps - o.Sleeps}
}

// QueryStats asks the stub server the client is connected to for its Stats
// (with the stubmongoStats command, counted as one "other" command).
func QueryStats(ctx context.Context, client *mongo.Client) (Stats, error) {
	var r struct {
		Handshake    int64 `bson:"handshake"`
		Insert       int64 `bson:"insert"`
		Update       int64 `bson:"update"`
		Delete       int64 `bson:"delete"`
		Find         int64 `bson:"find"`
		Other        int64 `bson:"other"`
		InsertedDocs int64 `bson:"insertedDocs"`
		CPUUserNanos int64 `bson:"cpuUserNanos"`
		CPUSysNanos  int64 `bson:"cpuSysNanos"`
		Sleeps       int64 `bson:"sleeps"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: statsCommand, Value: 1}}).Decode(&r); err != nil {
		return Stats{}, fmt.Errorf("%s: %w", statsCommand, err)
	}
	return Stats{
		Counts: Counts{
			Handshake: uint64(r.Handshake), Insert: uint64(r.Insert), Update: uint64(r.Update),
			Delete: uint64(r.Delete), Find: uint64(r.Find), Other: uint64(r.Other),
			InsertedDocs: uint64(r.InsertedDocs),
		},
		CPU:    time.Duration(r.CPUUserNanos + r.CPUSysNanos),
		Sleeps: r.Sleeps,
	}, nil
}

// lockedBuffer collects a child's output (at most 64 KiB) for error messages.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 64<<10 - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
