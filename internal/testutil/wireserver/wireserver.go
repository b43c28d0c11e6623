package wireserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

const (
	// buildTimeout bounds `wire-server.sh classpath`: the first build downloads
	// ~15 jars from Maven Central (about 40 s here); later ones read the cache.
	buildTimeout = 10 * time.Minute
	// startTimeout bounds the wait for the "LISTENING" line (JVM start-up and
	// bind take about a second on an idle machine).
	startTimeout = 60 * time.Second
	// stopTimeout is how long a JVM gets to exit on SIGTERM before SIGKILL.
	stopTimeout = 10 * time.Second
	// logLimit caps the output of the JVM kept for error messages.
	logLimit = 64 << 10
)

// Server is a running mongo-java-server.
type Server struct {
	addr string
	cmd  *exec.Cmd
	// stdin is the write end of the JVM's stdin: closing it makes the JVM exit,
	// and the kernel closes it if this process dies, so no JVM outlives us.
	stdin   io.WriteCloser
	output  *tailBuffer
	exited  chan struct{} // closed once cmd.Wait has returned
	waitErr error         // valid after exited is closed

	stopOnce sync.Once
	stopErr  error
}

// URI returns a connection string for driver v2. directConnection=true makes
// the driver treat the server as a single standalone node instead of trying
// to discover a topology.
func (s *Server) URI() string {
	return "mongodb://" + s.addr + "/?directConnection=true"
}

// Addr returns the server's "host:port".
func (s *Server) Addr() string { return s.addr }

// Output returns the tail of the JVM's stdout and stderr (warnings and errors
// of mongo-java-server are logged there), for diagnosing a failing test.
func (s *Server) Output() string { return s.output.String() }

// Start starts a server of the test's own on 127.0.0.1 and a free port; it is
// stopped when the test and its subtests have finished. It fails the test
// (never skips it) when the server cannot be built or started.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := start()
	if err != nil {
		tb.Fatalf("wireserver: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("wireserver: %v", err)
		}
		if tb.Failed() {
			tb.Logf("wireserver %s output (tail):\n%s", s.addr, s.Output())
		}
	})
	return s
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns a server shared by every caller in this test binary, started
// by the first call. It need not be stopped: the JVM exits when the test
// binary does, because its stdin (a pipe from this process) closes.
// Tests sharing it must not depend on each other's data: give each test its
// own database (e.g. derived from t.Name()). A TestMain that wants a clean
// stop calls CloseShared after m.Run.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	shared.once.Do(func() { shared.srv, shared.err = start() })
	if shared.err != nil {
		tb.Fatalf("wireserver: shared server: %v", shared.err)
	}
	return shared.srv
}

// DatabaseURI is the connection string of database db on the server at
// addr ("host:port": a Server's Addr, or a proxy's in front of it).
func DatabaseURI(addr, db string) string {
	return "mongodb://" + addr + "/" + db + "?directConnection=true"
}

// TestDatabase returns a database name unique to the test, on srv, and a
// handle on it; the database is dropped first (the shared server outlives a
// test run with -count=N).
func TestDatabase(tb testing.TB, srv *Server) (string, *mongo.Database) {
	tb.Helper()
	name := strings.NewReplacer("/", "_", " ", "_").Replace(tb.Name())
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	db := client.Database(name)
	if err := db.Drop(context.Background()); err != nil {
		tb.Fatalf("drop %s: %v", name, err)
	}
	return name, db
}

// Main runs a package's tests and then stops the shared server, for a
// TestMain with nothing else to clean up. It does not return.
func Main(m *testing.M) {
	code := m.Run()
	if err := CloseShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// CloseShared stops the shared server if Shared started one: after m.Run
// in a TestMain that has more to clean up (else use Main).
func CloseShared() error {
	// Use up the Once, so that a later Shared fails instead of starting a
	// server that nobody would stop.
	shared.once.Do(func() { shared.err = errors.New("Shared called after CloseShared") })
	if shared.srv == nil {
		return nil
	}
	return shared.srv.Close()
}

// Close stops the server: SIGTERM to the JVM's process group (and EOF on its
// stdin), SIGKILL if it has not exited within 10 s, then waits for it. It is
// safe to call more than once.
func (s *Server) Close() error {
	s.stopOnce.Do(func() { s.stopErr = s.stop() })
	return s.stopErr
}

func (s *Server) stop() error {
	_ = s.stdin.Close()
	pgid := s.cmd.Process.Pid // Setpgid made the JVM the leader of its group
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-s.exited:
	case <-timer.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.exited
		return fmt.Errorf("JVM %d did not exit within %v of SIGTERM; killed it", pgid, stopTimeout)
	}
	// The JVM exits with 143 on SIGTERM, and 0 when it saw stdin's EOF first:
	// both are a clean stop.
	var exitErr *exec.ExitError
	sigterm := errors.As(s.waitErr, &exitErr) && exitErr.ExitCode() == 128+int(syscall.SIGTERM)
	if s.waitErr == nil || sigterm {
		return nil
	}
	return fmt.Errorf("JVM %d: %w", pgid, s.waitErr)
}

// start builds (or reuses) the server's classpath and starts the JVM.
func start() (*Server, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return nil, fmt.Errorf("java is not installed (%w): the MongoDB wire-protocol test server "+
			"(mongo-java-server) needs Java 17+ and Maven, e.g. apt-get install openjdk-17-jdk-headless maven", err)
	}
	script, err := findScript()
	if err != nil {
		return nil, err
	}

	// Build first, under its own, longer deadline, so a cold Maven download
	// is not counted against the start-up timeout.
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	var buildOut bytes.Buffer
	build := exec.CommandContext(ctx, script, "classpath")
	build.Stdout = io.Discard
	build.Stderr = &buildOut
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("%s classpath: %w\n%s", script, err, buildOut.String())
	}

	cmd := exec.Command(script, "run", "127.0.0.1", "0")
	// Own process group, so Close can signal the JVM and anything it started
	// without touching the test binary's group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	output := &tailBuffer{limit: logLimit}
	cmd.Stderr = output
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s run: %w", script, err)
	}
	s := &Server{cmd: cmd, stdin: stdin, output: output, exited: make(chan struct{})}

	// One goroutine reads stdout: it hands over the address line, then keeps
	// draining (into the tail buffer) so the JVM never blocks on a full pipe.
	// cmd.Wait must not run before it is done reading, hence the chaining.
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if addr, ok := strings.CutPrefix(line, "LISTENING "); ok {
				select {
				case addrc <- strings.TrimSpace(addr):
				default:
				}
				continue
			}
			_, _ = fmt.Fprintln(output, line)
		}
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case s.addr = <-addrc:
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("the JVM exited before listening (%w); its output:\n%s", exitReason(s.waitErr), output.String())
	case <-timer.C:
		_ = s.Close()
		return nil, fmt.Errorf("the JVM did not print its address within %v; its output:\n%s", startTimeout, output.String())
	}
}

// exitReason describes how a process that should have kept running ended.
func exitReason(waitErr error) error {
	if waitErr == nil {
		return errors.New("exit status 0")
	}
	return waitErr
}

// findScript locates hack/wire-server.sh by walking up from the working
// directory, which `go test` sets to the package's directory.
func findScript() (string, error) {
	if p := os.Getenv("MONGOBENCH_WIRESERVER_SCRIPT"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		p := filepath.Join(dir, "hack", "wire-server.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("hack/wire-server.sh not found in any parent of the working directory " +
				"(set MONGOBENCH_WIRESERVER_SCRIPT to its path)")
		}
		dir = parent
	}
}

// tailBuffer keeps the last limit bytes written to it; safe for concurrent use.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte
	limit int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
