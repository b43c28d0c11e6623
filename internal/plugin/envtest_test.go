package plugin

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
)

// The commands run in-process against a real API server, through a
// kubeconfig file and the same flags a user passes (--kubeconfig, -n), while
// the test plays the controller by writing the run's status.

var env *kube.Env

func TestMain(m *testing.M) { kube.Main(m, &env) }

var kubeconfigs sync.Map // user name -> kubeconfig path

// kubeconfigFor writes a kubeconfig for an envtest user (created on first
// use) and returns its path.
func kubeconfigFor(t *testing.T, user string, groups ...string) string {
	t.Helper()
	if p, ok := kubeconfigs.Load(user); ok {
		return p.(string)
	}
	u, err := env.AddUser(envtest.User{Name: user, Groups: groups}, env.Config)
	if err != nil {
		t.Fatal(err)
	}
	b, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "kubectl-mongobench-")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, user+".kubeconfig")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	actual, _ := kubeconfigs.LoadOrStore(user, p)
	return actual.(string)
}

// adminKubeconfig is a cluster-admin's kubeconfig.
func adminKubeconfig(t *testing.T) string { return kubeconfigFor(t, "admin", "system:masters") }

func newClient(t *testing.T) client.Client {
	t.Helper()
	c, err := client.New(env.Config, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// createNamespace creates a namespace: name, or generated from prefix "name-".
func createNamespace(t *testing.T, c client.Client, name string) string {
	t.Helper()
	ns := &corev1.Namespace{}
	if strings.HasSuffix(name, "-") {
		ns.GenerateName = name
	} else {
		ns.Name = name
	}
	if err := c.Create(testContext(t), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// createRun creates a run with the sample spec and no status.
func createRun(t *testing.T, c client.Client, ns, name string) *benchv1.BenchmarkRun {
	t.Helper()
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: sampleSpec()}
	if err := c.Create(testContext(t), run); err != nil {
		t.Fatal(err)
	}
	return run
}

// setStatus writes the run's status as the controller would.
func setStatus(t *testing.T, c client.Client, run *benchv1.BenchmarkRun, st benchv1.BenchmarkRunStatus) {
	t.Helper()
	ctx := testContext(t)
	cur := &benchv1.BenchmarkRun{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(run), cur); err != nil {
		t.Fatal(err)
	}
	cur.Status = st
	if err := c.Status().Update(ctx, cur); err != nil {
		t.Fatalf("update status: %v", err)
	}
}

// invocation is one command running in the background.
type invocation struct {
	stdout, stderr *syncbuf.Buffer
	done           chan ExitCode
	code           ExitCode
	// interrupt cancels the command's context, as Ctrl-C does.
	interrupt context.CancelFunc
}

// start runs the plugin with args (a kubeconfig flag is appended) in the
// background; opts may adjust the options before the run.
func start(t *testing.T, kubeconfig string, args []string, opts ...func(*options)) *invocation {
	t.Helper()
	inv := &invocation{stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}, done: make(chan ExitCode, 1)}
	o := newOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: inv.stdout, ErrOut: inv.stderr})
	for _, f := range opts {
		f(o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	inv.interrupt = cancel
	args = append(append([]string{}, args...), "--kubeconfig", kubeconfig)
	go func() { inv.done <- run(ctx, args, o) }()
	return inv
}

// exit waits (bounded) for the command to end and returns its code.
func (inv *invocation) exit(t *testing.T, within time.Duration) ExitCode {
	t.Helper()
	select {
	case inv.code = <-inv.done:
		return inv.code
	case <-time.After(within):
		t.Fatalf("command still running after %s\nstdout:\n%s\nstderr:\n%s", within, inv.stdout, inv.stderr)
	}
	return 0
}

// runPlugin runs a command to its end.
func runPlugin(t *testing.T, kubeconfig string, args ...string) (ExitCode, string, string) {
	t.Helper()
	inv := start(t, kubeconfig, args)
	code := inv.exit(t, time.Minute)
	return code, inv.stdout.String(), inv.stderr.String()
}

// awaitOutput polls the command's stdout until it contains want.
func (inv *invocation) awaitOutput(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(inv.stdout.String(), want) {
		select {
		case code := <-inv.done:
			inv.done <- code
			t.Fatalf("command exited (%d) before printing %q\nstdout:\n%s\nstderr:\n%s", code, want, inv.stdout, inv.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output after 30s\nstdout:\n%s\nstderr:\n%s", want, inv.stdout, inv.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var stamp = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ `)

// unstamped checks every line's timestamp and strips it.
func unstamped(t *testing.T, out string) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		if !stamp.MatchString(l) {
			t.Errorf("line without an RFC 3339 UTC timestamp: %q", l)
			continue
		}
		lines = append(lines, stamp.ReplaceAllString(l, ""))
	}
	return lines
}
