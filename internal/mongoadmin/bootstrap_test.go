package mongoadmin

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/results"
)

// sameLines fails the test with a line diff when got and want differ.
func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if g != w {
			mark = "✗ "
		}
		fmt.Fprintf(&b, "%s%2d got  %s\n     want %s\n", mark, i, g, w)
	}
	t.Errorf("%s differ:\n%s", what, b.String())
}

func TestBootstrapStandaloneCommands(t *testing.T) {
	f := newFake(t)
	f.add(&fakeServer{host: "run-mongod-0.run-mongod:27017", role: roleStandalone, version: "8.0.4"})
	topo := Topology{Mode: ModeStandalone, Standalone: "run-mongod-0.run-mongod:27017"}

	report, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	const h = "run-mongod-0.run-mongod:27017"
	sameLines(t, "commands", f.callStrings(), []string{
		h + ` admin {"hello":1}`,
		h + ` admin {"buildInfo":1}`,
		h + ` ycsb {"listCollections":1,"filter":{"name":"usertable"}}`,
		h + ` ycsb {"create":"usertable"}`,
		h + ` admin {"getCmdLineOpts":1}`,
		h + ` admin {"getLog":"startupWarnings"}`,
		h + ` admin {"getParameter":1,"featureCompatibilityVersion":1}`,
		h + ` admin {"serverStatus":1,"repl":0,"metrics":0,"locks":0}`,
	})
	want := &results.Bootstrap{ServerVersion: "8.0.4", Namespace: "ycsb.usertable", Server: &results.ServerEnvironment{
		Version: "8.0.4", GitVersion: "git-8.0.4", Allocator: "tcmalloc-google", OpenSSL: "OpenSSL 3.0.13", FeatureCompatibilityVersion: "8.0",
		StorageEngine: "wiredTiger", Processes: []results.ProcessEnvironment{{Host: h, Options: `{"net": {"port": {"$numberInt":"27017"}}}`,
			StartupWarnings: []string{`{"msg":"startup warning of ` + h + `"}`}}}}}
	if !reflect.DeepEqual(report, want) {
		t.Errorf("report = %+v, want %+v", report, want)
	}
	if f.closes != len(f.dials) || !reflect.DeepEqual(f.dials, []string{"mongodb://" + h + "/?directConnection=true&retryWrites=false"}) {
		t.Errorf("dialed %v and closed %d, want one direct connection, closed", f.dials, f.closes)
	}
}

// shardedSetup is the command sequence for n shards of a topology that
// nothing has touched yet, up to shardCollection (key given as JSON) and
// the read of its config.collections entry.
func shardedSetup(n int, keyJSON string) []string {
	lines := []string{
		cfgHost + ` admin {"replSetGetStatus":1}`,
		cfgHost + ` admin {"replSetInitiate":{"_id":"cfg","version":1,"configsvr":true,"members":[{"_id":0,"host":"` + cfgHost + `"}]}}`,
		cfgHost + ` admin {"hello":1}`,
	}
	for i := range n {
		h := shardHost(i)
		lines = append(lines,
			h+` admin {"replSetGetStatus":1}`,
			h+fmt.Sprintf(` admin {"replSetInitiate":{"_id":"shard%d","version":1,"members":[{"_id":0,"host":"%s"}]}}`, i, h),
			h+` admin {"hello":1}`,
		)
	}
	lines = append(lines,
		mongosHost+` admin {"hello":1}`,
		mongosHost+` admin {"listShards":1}`,
	)
	for i := range n {
		lines = append(lines, mongosHost+fmt.Sprintf(` admin {"addShard":"shard%d/%s","name":"shard%d"}`, i, shardHost(i), i))
	}
	return append(lines,
		mongosHost+` admin {"balancerStatus":1}`,
		mongosHost+` admin {"balancerStop":1}`,
		mongosHost+` admin {"balancerStatus":1}`,
		mongosHost+` config {"find":"collections","filter":{"_id":"ycsb.usertable"}}`,
		mongosHost+` admin {"enableSharding":"ycsb"}`,
		mongosHost+` admin {"shardCollection":"ycsb.usertable","key":`+keyJSON+`}`,
		mongosHost+` config {"find":"collections","filter":{"_id":"ycsb.usertable"}}`,
	)
}

// uuidJSON is the fake's collection uuid as the commands render it.
const uuidJSON = `{"$binary":{"base64":"MDEyMzQ1Njc4OWFiY2RlZg==","subType":"04"}}`

// bootstrapResultCommands read what the bootstrap result says: version, shards, chunk counts.
func bootstrapResultCommands() []string {
	return []string{
		mongosHost + ` admin {"buildInfo":1}`,
		mongosHost + ` admin {"listShards":1}`,
		mongosHost + ` config {"aggregate":"chunks","pipeline":[{"$match":{"uuid":` + uuidJSON + `}},{"$group":{"_id":"$shard","chunks":{"$sum":1}}}],"cursor":{}}`,
	}
}

// environmentCommands ask every process for its options and startup
// warnings, and shard0 for the featureCompatibilityVersion.
func environmentCommands(n int) []string {
	hosts := []string{cfgHost}
	for i := range n {
		hosts = append(hosts, shardHost(i))
	}
	var lines []string
	for _, h := range append(hosts, mongosHost) {
		lines = append(lines, h+` admin {"getCmdLineOpts":1}`, h+` admin {"getLog":"startupWarnings"}`)
		if h == shardHost(0) {
			lines = append(lines, h+` admin {"getParameter":1,"featureCompatibilityVersion":1}`,
				h+` admin {"serverStatus":1,"repl":0,"metrics":0,"locks":0}`)
		}
	}
	return lines
}

// shardedFromScratch is the command sequence for n shards of a topology
// that nothing has touched yet, with a hashed key.
func shardedFromScratch(n int, keyJSON string) []string {
	return append(shardedSetup(n, keyJSON), bootstrapResultCommands()...)
}

// Commands of the ranged pre-split, as the fake records them.
const findChunksJSON = ` config {"find":"chunks","filter":{"uuid":` + uuidJSON + `},"sort":{"min":1},"projection":{"_id":0,"min":1,"max":1,"shard":1}}`

func splitAt(key string) string {
	return mongosHost + ` admin {"split":"ycsb.usertable","middle":{"_id":"` + key + `"}}`
}

func moveRangeTo(shard, lo, hi string) string {
	return mongosHost + ` admin {"moveRange":"ycsb.usertable","toShard":"` + shard + `","min":{"_id":` + lo + `},"max":{"_id":` + hi + `}}`
}

func moveChunkTo(shard, lo, hi string) string {
	return mongosHost + ` admin {"moveChunk":"ycsb.usertable","bounds":[{"_id":` + lo + `},{"_id":` + hi + `}],"to":"` + shard + `"}`
}

func getMore(id int) string {
	return mongosHost + fmt.Sprintf(` config {"getMore":%d,"collection":"chunks"}`, id)
}

const (
	minKeyJSON = `{"$minKey":1}`
	maxKeyJSON = `{"$maxKey":1}`
)

func TestBootstrapShardedHashedCommands(t *testing.T) {
	f, topo := newShardedFake(t, 3, ShardKeyHashed)
	report, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	want := append(append(shardedFromScratch(3, `{"_id":"hashed"}`),
		// 3 groups in batches of 2: one getMore.
		mongosHost+` config {"getMore":1,"collection":"chunks"}`), environmentCommands(3)...)
	sameLines(t, "commands", f.callStrings(), want)

	wantBoot := &results.Bootstrap{
		ServerVersion: "7.0.14",
		Namespace:     "ycsb.usertable",
		Sharded:       true,
		ShardKey:      `{"_id":"hashed"}`,
		BalancerMode:  "off",
		Shards: []results.ShardChunks{
			{Name: "shard0", Host: "shard0/" + shardHost(0), Chunks: 2},
			{Name: "shard1", Host: "shard1/" + shardHost(1), Chunks: 2},
			{Name: "shard2", Host: "shard2/" + shardHost(2), Chunks: 2},
		},
	}
	checkServerEnvironment(t, report, 3)
	if !reflect.DeepEqual(report, wantBoot) {
		t.Errorf("report =\n%+v\nwant\n%+v", report, wantBoot)
	}
	// The report must be one the controller accepts.
	b, err := results.EncodeBootstrap(report)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if _, err := results.DecodeBootstrap(b); err != nil {
		t.Errorf("decode the report: %v", err)
	}

	for _, uri := range f.dials {
		if !strings.HasSuffix(uri, "/?directConnection=true&retryWrites=false") {
			t.Errorf("dialed %q: want a direct connection that says retryWrites=false", uri)
		}
	}
	if len(f.dials) != 5 || f.closes != 5 {
		t.Errorf("dialed %d servers and closed %d, want 5 and 5 (one client per server)", len(f.dials), f.closes)
	}
	if len(f.clock.slept) != 0 {
		t.Errorf("slept %v with every server ready at once", f.clock.slept)
	}
}

// TestBootstrapShardedRangedCommands: a ranged collection is split at the
// split points and range i moved to shard i, with the balancer already off;
// the report shows one chunk per shard, its range, and the split points.
func TestBootstrapShardedRangedCommands(t *testing.T) {
	f, topo := newShardedFake(t, 3, ShardKeyRanged)
	report, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	want := append(shardedSetup(3, `{"_id":1}`),
		mongosHost+findChunksJSON, // one chunk on the primary shard
		splitAt("user3"),
		splitAt("user6"),
		mongosHost+findChunksJSON, // three chunks, in batches of 2
		getMore(1),
		moveRangeTo("shard1", `"user3"`, `"user6"`),
		moveRangeTo("shard2", `"user6"`, maxKeyJSON),
		mongosHost+findChunksJSON, // the outcome, checked
		getMore(2),
	)
	want = append(append(append(want, bootstrapResultCommands()...), getMore(3)), environmentCommands(3)...)
	sameLines(t, "commands", f.callStrings(), want)

	wantBoot := &results.Bootstrap{
		ServerVersion: "7.0.14",
		Namespace:     "ycsb.usertable",
		Sharded:       true,
		ShardKey:      `{"_id":1}`,
		BalancerMode:  "off",
		Shards: []results.ShardChunks{
			{Name: "shard0", Host: "shard0/" + shardHost(0), Chunks: 1, Range: &results.KeyRange{Min: results.MinKeyBound, Max: "user3"}},
			{Name: "shard1", Host: "shard1/" + shardHost(1), Chunks: 1, Range: &results.KeyRange{Min: "user3", Max: "user6"}},
			{Name: "shard2", Host: "shard2/" + shardHost(2), Chunks: 1, Range: &results.KeyRange{Min: "user6", Max: results.MaxKeyBound}},
		},
		SplitPoints: []string{"user3", "user6"},
	}
	checkServerEnvironment(t, report, 3)
	if !reflect.DeepEqual(report, wantBoot) {
		t.Errorf("report =\n%+v\nwant\n%+v", report, wantBoot)
	}
	b, err := results.EncodeBootstrap(report)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if _, err := results.DecodeBootstrap(b); err != nil {
		t.Errorf("decode the report: %v", err)
	}
	if len(f.clock.slept) != 0 {
		t.Errorf("slept %v with every server ready at once", f.clock.slept)
	}
}

// TestBootstrapRangedOneShard: one shard, no split points, nothing to split
// or move.
func TestBootstrapRangedOneShard(t *testing.T) {
	f, topo := newShardedFake(t, 1, ShardKeyRanged)
	report, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	want := append(append(append(shardedSetup(1, `{"_id":1}`), mongosHost+findChunksJSON), bootstrapResultCommands()...), environmentCommands(1)...)
	sameLines(t, "commands", f.callStrings(), want)
	if report.SplitPoints != nil || !reflect.DeepEqual(report.Shards[0].Range, &results.KeyRange{Min: results.MinKeyBound, Max: results.MaxKeyBound}) {
		t.Errorf("report %+v, shard %+v", report, report.Shards[0])
	}
}

// TestBootstrapMongoDB50: MongoDB 5.0 shards a collection only in a
// database enabled for sharding, and has no moveRange: Bootstrap enables
// sharding, pre-splits a ranged collection with moveChunk, and a second
// run changes nothing.
func TestBootstrapMongoDB50(t *testing.T) {
	f, topo := newShardedFake(t, 3, ShardKeyRanged)
	f.setVersion("5.0.28")
	report, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	var sharding []string
	for _, m := range f.mutating() {
		if !strings.Contains(m, "replSetInitiate") && !strings.Contains(m, "addShard") {
			sharding = append(sharding, m)
		}
	}
	sameLines(t, "sharding commands", sharding, []string{
		mongosHost + ` admin {"balancerStop":1}`,
		mongosHost + ` admin {"enableSharding":"ycsb"}`,
		mongosHost + ` admin {"shardCollection":"ycsb.usertable","key":{"_id":1}}`,
		splitAt("user3"),
		splitAt("user6"),
		moveRangeTo("shard1", `"user3"`, `"user6"`), // 59 CommandNotFound
		moveChunkTo("shard1", `"user3"`, `"user6"`),
		moveChunkTo("shard2", `"user6"`, maxKeyJSON),
	})
	if report.ServerVersion != "5.0.28" || len(report.Shards) != 3 || report.Shards[2].Chunks != 1 ||
		!reflect.DeepEqual(report.Shards[2].Range, &results.KeyRange{Min: "user6", Max: results.MaxKeyBound}) {
		t.Errorf("report %+v", report)
	}

	f.calls = nil
	if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
		t.Fatalf("second Bootstrap: %v", err)
	}
	if m := f.mutating(); len(m) != 0 {
		t.Errorf("second Bootstrap sent mutating commands:\n%s", strings.Join(m, "\n"))
	}
}

func TestBootstrapRerunSendsNothingMutating(t *testing.T) {
	for _, key := range []ShardKey{ShardKeyHashed, ShardKeyRanged} {
		t.Run(string(key), func(t *testing.T) {
			f, topo := newShardedFake(t, 3, key)
			first, err := Bootstrap(context.Background(), topo, f.options())
			if err != nil {
				t.Fatalf("first Bootstrap: %v", err)
			}
			f.calls = nil
			second, err := Bootstrap(context.Background(), topo, f.options())
			if err != nil {
				t.Fatalf("second Bootstrap: %v", err)
			}
			if m := f.mutating(); len(m) != 0 {
				t.Errorf("second Bootstrap sent mutating commands:\n%s", strings.Join(m, "\n"))
			}
			if !reflect.DeepEqual(first, second) {
				t.Errorf("second report %+v differs from the first %+v", second, first)
			}
		})
	}

	t.Run("standalone", func(t *testing.T) {
		f := newFake(t)
		f.add(&fakeServer{host: "m:27017", role: roleStandalone})
		topo := Topology{Mode: ModeStandalone, Standalone: "m:27017"}
		for i := range 2 {
			if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
				t.Fatalf("Bootstrap #%d: %v", i+1, err)
			}
			if i == 0 {
				f.calls = nil
			}
		}
		if m := f.mutating(); len(m) != 0 {
			t.Errorf("second Bootstrap sent mutating commands:\n%s", strings.Join(m, "\n"))
		}
	})
}

// TestBootstrapPartlyDone: a Job that died after the config server and the
// first shard were initiated and that shard added finishes the rest.
func TestBootstrapPartlyDone(t *testing.T) {
	f, topo := newShardedFake(t, 3, ShardKeyHashed)
	for _, h := range []string{cfgHost, shardHost(0)} {
		f.servers[h].initiated = true
		f.servers[h].configHost = h
	}
	f.servers[mongosHost].shards = []shardInfo{{ID: "shard0", Host: "shard0/" + shardHost(0)}}

	if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	sameLines(t, "mutating commands", f.mutating(), []string{
		shardHost(1) + ` admin {"replSetInitiate":{"_id":"shard1","version":1,"members":[{"_id":0,"host":"` + shardHost(1) + `"}]}}`,
		shardHost(2) + ` admin {"replSetInitiate":{"_id":"shard2","version":1,"members":[{"_id":0,"host":"` + shardHost(2) + `"}]}}`,
		mongosHost + ` admin {"addShard":"shard1/` + shardHost(1) + `","name":"shard1"}`,
		mongosHost + ` admin {"addShard":"shard2/` + shardHost(2) + `","name":"shard2"}`,
		mongosHost + ` admin {"balancerStop":1}`,
		mongosHost + ` admin {"enableSharding":"ycsb"}`,
		mongosHost + ` admin {"shardCollection":"ycsb.usertable","key":{"_id":"hashed"}}`,
	})
}

func TestBootstrapCustomNamespace(t *testing.T) {
	f, topo := newShardedFake(t, 1, ShardKeyHashed)
	topo.Namespace = "bench.coll.with.dots"
	report, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	if report.Namespace != topo.Namespace {
		t.Errorf("namespace %q, want %q", report.Namespace, topo.Namespace)
	}
	if _, ok := f.servers[mongosHost].sharded["bench.coll.with.dots"]; !ok {
		t.Errorf("bench.coll.with.dots not sharded; commands:\n%s", strings.Join(f.callStrings(), "\n"))
	}
}

func TestBootstrapStandaloneErrors(t *testing.T) {
	t.Run("started with --replSet", func(t *testing.T) {
		f := newFake(t)
		f.add(&fakeServer{host: "m:27017", role: roleMember, replSet: "rs0"})
		_, err := Bootstrap(context.Background(), Topology{Mode: ModeStandalone, Standalone: "m:27017"}, f.options())
		if err == nil || !strings.Contains(err.Error(), "wait for mongod m:27017: m:27017 was started with --replSet") {
			t.Errorf("err = %v, want the --replSet mistake named", err)
		}
		if len(f.clock.slept) != 0 {
			t.Errorf("slept %v before failing", f.clock.slept)
		}
	})
	t.Run("not up yet, then up", func(t *testing.T) {
		f := newFake(t)
		f.add(&fakeServer{host: "m:27017", role: roleStandalone})
		f.failNext("m:27017", "hello", repeat(injection{err: networkError("connection refused")}, 3)...)
		f.failNext("m:27017", "create", injection{err: serverError(11602, "InterruptedDueToReplStateChange", "")})
		if _, err := Bootstrap(context.Background(), Topology{Mode: ModeStandalone, Standalone: "m:27017"}, f.options()); err != nil {
			t.Fatalf("Bootstrap: %v", err)
		}
		if n := f.count("m:27017", `{"create"`); n != 2 {
			t.Errorf("%d create, want 2", n)
		}
	})
	t.Run("hello unknown: isMaster", func(t *testing.T) {
		f := newFake(t)
		f.add(&fakeServer{host: "m:27017", role: roleStandalone, noHello: true})
		if _, err := Bootstrap(context.Background(), Topology{Mode: ModeStandalone, Standalone: "m:27017"}, f.options()); err != nil {
			t.Fatalf("Bootstrap: %v", err)
		}
		if n := f.count("m:27017", `{"isMaster"`); n != 1 {
			t.Errorf("%d isMaster, want 1", n)
		}
	})
}

// checkServerEnvironment checks the report's server environment from the
// fake (n shards), then leaves it out of the report for the comparisons
// that follow.
func checkServerEnvironment(t *testing.T, report *results.Bootstrap, n int) {
	t.Helper()
	env := report.Server
	report.Server = nil
	if env == nil || env.Version != report.ServerVersion || env.GitVersion != "git-"+report.ServerVersion || env.Allocator != "tcmalloc-google" || env.OpenSSL != "OpenSSL 3.0.13" || env.FeatureCompatibilityVersion != "8.0" ||
		env.StorageEngine != "wiredTiger" {
		t.Fatalf("server environment %+v", env)
	}
	hosts := []string{cfgHost}
	for i := range n {
		hosts = append(hosts, shardHost(i))
	}
	hosts = append(hosts, mongosHost)
	if len(env.Processes) != len(hosts) {
		t.Fatalf("%d processes, want %d: %+v", len(env.Processes), len(hosts), env.Processes)
	}
	for i, p := range env.Processes {
		// FCV is asked of shard0 only, so mongos reports nothing missing.
		if p.Host != hosts[i] || p.Options == "" || len(p.StartupWarnings) != 1 || !strings.Contains(p.StartupWarnings[0], p.Host) ||
			len(p.Unavailable) != 0 {
			t.Errorf("process %d: %+v", i, p)
		}
	}
}
