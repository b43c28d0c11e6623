package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
)

// StartScheduler runs the real kube-scheduler (built beside the envtest
// binaries by hack/envtest-assets.sh) against the API server until the
// test ends, so placement rules — resource fit, node and pod (anti-)
// affinity — are decided by the scheduler itself, not by a test's guess.
// Its output is logged when the test fails.
func (e *Env) StartScheduler(t testing.TB) {
	t.Helper()
	assets, err := AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(assets, "kube-scheduler")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("kube-scheduler not found in %s: run `make envtest` (hack/envtest-assets.sh builds it): %v", assets, err)
	}
	user, err := e.AddUser(envtest.User{Name: "scheduler", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scheduler.kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	out := &syncbuf.Buffer{}
	cmd := exec.Command(bin, "--kubeconfig="+path, "--leader-elect=false", "--secure-port=0", "-v=2")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kube-scheduler: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("kube-scheduler output:\n%s", out.String())
		}
	})
}
