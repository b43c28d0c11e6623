package kube

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// K8sVersion is the version of the envtest binaries (keep in sync with the
// Makefile's K8S_VERSION).
const K8sVersion = "1.36.3"

// RepoRoot is the repository's top directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Scheme holds the built-in types and the BenchmarkRun API.
func Scheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := benchv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}

// AssetsDir finds the envtest binaries: $KUBEBUILDER_ASSETS, else
// bin/k8s/<version>-<os>-<arch> in the repository.
func AssetsDir() (string, error) {
	if d := os.Getenv("KUBEBUILDER_ASSETS"); d != "" {
		return d, nil
	}
	d := filepath.Join(RepoRoot(), "bin", "k8s", fmt.Sprintf("%s-%s-%s", K8sVersion, runtime.GOOS, runtime.GOARCH))
	if _, err := os.Stat(filepath.Join(d, "kube-apiserver")); err != nil {
		return "", fmt.Errorf("envtest binaries not found in %s: run `make envtest` (or hack/envtest-assets.sh) first, or set KUBEBUILDER_ASSETS", d)
	}
	return d, nil
}

// Env is a running API server.
type Env struct {
	Config *rest.Config
	env    *envtest.Environment
}

// Start starts etcd and kube-apiserver with the CRDs from config/crd/bases
// installed and waits until the BenchmarkRun API is served. Stop it with
// Stop (TestMain) — starting one per test package keeps suites fast.
func Start() (*Env, error) {
	assets, err := AssetsDir()
	if err != nil {
		return nil, err
	}
	e := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDDirectoryPaths:        []string{filepath.Join(RepoRoot(), "config", "crd", "bases")},
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
		Scheme:                   Scheme(),
	}
	cfg, err := e.Start()
	if err != nil {
		return nil, fmt.Errorf("start envtest (assets %s): %w", assets, err)
	}
	// Many tests create objects quickly; the default client-side limits
	// (QPS 5) would make them slow, not more realistic.
	cfg.QPS, cfg.Burst = 500, 1000
	return &Env{Config: cfg, env: e}, nil
}

// Stop shuts the control plane down.
func (e *Env) Stop() error { return e.env.Stop() }

// Main is a TestMain helper: it starts the API server, runs the tests and
// stops it, failing the package if the server cannot start.
func Main(m *testing.M, env **Env) {
	e, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*env = e
	code := m.Run()
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop envtest:", err)
	}
	os.Exit(code)
}

// AddUser adds an authenticated user (for kubectl in tests).
func (e *Env) AddUser(u envtest.User, cfg *rest.Config) (*envtest.AuthenticatedUser, error) {
	return e.env.AddUser(u, cfg)
}
