package loader

import (
	"net/url"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// The result and the telemetry share loader 0's ConfigMap: their bounds
// together stay under the API server's 1 MiB for a ConfigMap's data, with
// room for its metadata.
func TestResultAndTelemetryFitOneConfigMap(t *testing.T) {
	const configMapLimit = 1 << 20
	if total := results.MaxEncodedBytes + contract.MaxTelemetryBytes; total > configMapLimit-64<<10 {
		t.Errorf("result (%d) + telemetry (%d) = %d bytes, over a ConfigMap's %d less 64 KiB", results.MaxEncodedBytes,
			contract.MaxTelemetryBytes, total, configMapLimit)
	}
}

// Each process is reached alone, with the sampler's short timeouts.
func TestDirectURI(t *testing.T) {
	uri := directURI("r1-shard0.r1-db.bench.svc.cluster.local:27018", "")
	opts := options.Client().ApplyURI(uri)
	if err := opts.Validate(); err != nil {
		t.Fatalf("%s: %v", uri, err)
	}
	if opts.Direct == nil || !*opts.Direct || len(opts.Hosts) != 1 || opts.Hosts[0] != "r1-shard0.r1-db.bench.svc.cluster.local:27018" {
		t.Errorf("%s: direct %v, hosts %v", uri, opts.Direct, opts.Hosts)
	}
	if opts.ServerSelectionTimeout == nil || *opts.ServerSelectionTimeout != telemetryTimeout ||
		opts.ConnectTimeout == nil || *opts.ConnectTimeout != telemetryTimeout {
		t.Errorf("%s: timeouts %v, %v", uri, opts.ServerSelectionTimeout, opts.ConnectTimeout)
	}
	// Explicit, never the driver's default.
	if opts.RetryWrites == nil || *opts.RetryWrites {
		t.Errorf("%s: retryWrites %v, want an explicit false", uri, opts.RetryWrites)
	}
	u, err := url.Parse(directURI("h:1", "ycsb"))
	if err != nil || u.Path != "/ycsb" {
		t.Errorf("with a database: %v, %v", u, err)
	}
}
