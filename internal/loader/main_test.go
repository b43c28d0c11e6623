package loader

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if apiServer.env != nil {
		if err := apiServer.env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop envtest:", err)
		}
	}
	if err := wireserver.CloseShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// apiServer is a kube-apiserver started by the first test that needs one.
var apiServer struct {
	once sync.Once
	env  *kube.Env
	err  error
}

func startAPIServer(t *testing.T) *kube.Env {
	t.Helper()
	apiServer.once.Do(func() { apiServer.env, apiServer.err = kube.Start() })
	if apiServer.err != nil {
		t.Fatal(apiServer.err)
	}
	return apiServer.env
}
