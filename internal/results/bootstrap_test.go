package results

import (
	"reflect"
	"strings"
	"testing"
)

func TestBootstrapRoundTrip(t *testing.T) {
	in := &Bootstrap{
		ServerVersion: "8.0.4", Namespace: "ycsb.usertable", Sharded: true, ShardKey: `{"_id":1}`, BalancerMode: "off",
		Shards: []ShardChunks{
			{Name: "shard0", Host: "shard0/a:1", Chunks: 1, Range: &KeyRange{Min: MinKeyBound, Max: "user3334"}},
			{Name: "shard1", Host: "shard1/b:1", Chunks: 1, Range: &KeyRange{Min: "user3334", Max: MaxKeyBound}},
		},
		SplitPoints: []string{"user3334"},
		Server: &ServerEnvironment{Version: "8.0.4", GitVersion: "abc123", Allocator: "tcmalloc-google", OpenSSL: "OpenSSL 3.0.13", FeatureCompatibilityVersion: "8.0",
			Processes: []ProcessEnvironment{{Host: "a:1", Options: `{"net":{"port":27017}}`, StartupWarnings: []string{"w1"}},
				{Host: "m:1", Unavailable: []string{"featureCompatibilityVersion: no"}}}},
	}
	b, err := EncodeBootstrap(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"version":3`) || !strings.Contains(string(b), `"allocator":"tcmalloc-google"`) ||
		!strings.Contains(string(b), `"server":{"version":"8.0.4","gitVersion":"abc123"`) || !strings.Contains(string(b), `"splitPoints":["user3334"]`) ||
		!strings.Contains(string(b), `"range":{"min":"$minKey","max":"user3334"}`) {
		t.Errorf("encoded %s", b)
	}
	out, err := DecodeBootstrap(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("decoded %+v, want %+v", out, in)
	}
}

// TestDecodeBootstrapVersion1: reports of loaders before version 2 (no split
// points, no ranges) still decode.
func TestDecodeBootstrapVersion1(t *testing.T) {
	v1 := `{"version":1,"serverVersion":"7.0.14","namespace":"ycsb.usertable","sharded":true,"shardKey":"{\"_id\":\"hashed\"}",` +
		`"balancerMode":"off","shards":[{"name":"shard0","host":"shard0/a:1","chunks":2}]}`
	r, err := DecodeBootstrap([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	want := &Bootstrap{Version: 1, ServerVersion: "7.0.14", Namespace: "ycsb.usertable", Sharded: true,
		ShardKey: `{"_id":"hashed"}`, BalancerMode: "off", Shards: []ShardChunks{{Name: "shard0", Host: "shard0/a:1", Chunks: 2}}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("decoded %+v, want %+v", r, want)
	}
}

func TestDecodeBootstrapRejects(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"version":4,"serverVersion":"8.0.4"}`, "version 4, want 1 to 3"},
		{`{"version":0,"serverVersion":"8.0.4"}`, "version 0"},
		{`{"version":2}`, "no server version"},
		{`{"version":2,"serverVersion":"8.0.4","sharded":true}`, "lists no shards"},
		{`{"version":2,"serverVersion":"8.0.4","sharded":true,"shards":[{"name":"s"}],"splitPoints":["user5","user4"]}`, "not in increasing order"},
		{`{"version":2,"serverVersion":"8.0.4","splitPoints":["user5"]}`, "not sharded"},
		{`{"version":2,`, "parse bootstrap report"},
		{`{"version":3,"serverVersion":"8.0.4","external":{"detected":"cluster"}}`, `external target detected as "cluster"`},
	} {
		if _, err := DecodeBootstrap([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeBootstrap(%s) = %v, want an error with %q", tc.json, err, tc.want)
		}
	}
}

// TestDecodeBootstrapWithoutBuildVersion: a version 3 report written before
// the environment recorded buildInfo's version still decodes, without it.
func TestDecodeBootstrapWithoutBuildVersion(t *testing.T) {
	old := `{"version":3,"serverVersion":"8.0.4","namespace":"ycsb.usertable","sharded":false,` +
		`"server":{"gitVersion":"6a56d4b1ee5ce7e4d3d1db3e8d23b9a3e0dc8e23","allocator":"tcmalloc-google","storageEngine":"wiredTiger"}}`
	r, err := DecodeBootstrap([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if r.Server == nil || r.Server.Version != "" || r.Server.GitVersion != "6a56d4b1ee5ce7e4d3d1db3e8d23b9a3e0dc8e23" {
		t.Errorf("decoded server environment %+v", r.Server)
	}
}

// TestBootstrapExternalRoundTrip: an external target's facts survive the
// encoding, and a result without them decodes with External nil.
func TestBootstrapExternalRoundTrip(t *testing.T) {
	in := &Bootstrap{ServerVersion: "8.0.4", Namespace: "bench_1.usertable",
		External: &ExternalTarget{Detected: DetectedReplicaSet, Hosts: "a:27017,b:27017", ReplicaSet: "rs0",
			Members: []string{"a:27017", "b:27017"}, Primary: "a:27017", Database: "bench_1", Owned: true,
			ExistingCollections: []string{"keep"}, Notes: []string{"balancer left as found"}}}
	b, err := EncodeBootstrap(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"version":3`) || !strings.Contains(string(b), `"external":{"detected":"replicaSet","hosts":"a:27017,b:27017"`) {
		t.Errorf("encoded %s", b)
	}
	out, err := DecodeBootstrap(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("decoded %+v, want %+v", out, in)
	}
}
