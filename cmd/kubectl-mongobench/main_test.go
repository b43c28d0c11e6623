package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The test binary doubles as the plugin: with this variable set it runs
// main, so the tests see the real process's exit codes and streams.
const runMainEnv = "KUBECTL_MONGOBENCH_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestProcessExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"--version"}, 0, "kubectl mongobench version ", ""},
		{[]string{"wait", "--help"}, 0, "Exit codes:\n  0  the run succeeded; the sweep succeeded (every one of its runs)\n  1  the run failed, or the sweep failed", ""},
		{[]string{"report", "--help"}, 0, "Output formats (-o):\n  md ", ""},
		{[]string{"report", "sweep/x", "-o", "pdf"}, 2, "", `unknown output format "pdf"`},
		{[]string{"wait", "pod/x"}, 2, "", `unknown resource type "pod"`},
		{[]string{"results", "run/x", "--kubeconfig", "/nonexistent/kubeconfig"}, 2, "", "/nonexistent/kubeconfig"},
		// Nothing listens on port 1: the API server cannot be asked.
		{[]string{"wait", "run/x", "--server", "http://127.0.0.1:1", "--timeout=5s"}, 2, "", "connection refused"},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), runMainEnv+"=1", "KUBECONFIG=/dev/null")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s\nwant exit %d, stdout with %q, stderr with %q",
				tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}
