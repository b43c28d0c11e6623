package loader

import (
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// TestLoadThatEndsInItsWarmupFails: a timed warm-up longer than the load
// leaves nothing measured; the phase fails and says why, rather than
// reporting a throughput of 0.
func TestLoadThatEndsInItsWarmupFails(t *testing.T) {
	srv := stubmongo.Start(t)
	code, _, stderr, termLog := runMain(t, nil, nil, "load", "-P", "workloada", "-p", "recordcount=300",
		"-p", "mongodb.url=mongodb://"+srv.Addr()+"/ycsb?directConnection=true", "-p", "warmuptime=3600", "-threads", "2")
	if code != ExitFailure || !strings.Contains(termLog, "load phase ended during its warm-up, after 300 warm-up operations: nothing was measured") {
		t.Fatalf("exit %d, termination log %q\n%s", code, termLog, stderr)
	}
}
