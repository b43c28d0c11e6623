package telemetry

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// The Sampler end to end against mongo-java-server (a real wire-protocol
// server, see internal/testutil/wireserver) while documents are inserted:
// two "processes" (two clients of the one server), one given as a client
// and one as a URI, and the collection's statistics during and after.
//
// What mongo-java-server 1.47.0 reports (recorded in testdata): serverStatus
// with version 6.0.0, uptimeMillis and connections.current only; no
// $collStats stage (error 40324), so the collStats command is used, which
// gives count, size and storageSize (0) but no totalIndexSize or indexSizes.
// The missing fields must come out absent: no errors, no zeros.
func TestSamplerWireServer(t *testing.T) {
	srv := wireserver.Shared(t)
	dbName, _ := wireserver.TestDatabase(t, srv) // dropped first: -count=N reuses the server
	client, answered := monitoredClient(t, srv.URI())
	coll := client.Database(dbName).Collection("usertable")

	// The phase: sampling starts, documents go in for at least 1.2 s and
	// until the Sampler has taken three samples of shard0 (the first and
	// two ticks) and two collection statistics, the phase's context ends,
	// then Stop (the last samples and statistics must still be taken, after
	// every insert). Waiting on what the Sampler did, not on the clock,
	// keeps a slow machine from failing the test: it only makes the phase
	// longer.
	const interval = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	begin := time.Now()
	s := Start(ctx, Config{
		Interval: interval,
		Timeout:  30 * time.Second, // a generous bound on each call: only a failure pays it
		Processes: []Process{
			{Role: "shard", Pod: "shard0", Client: client},
			{Role: "mongos", Pod: "mongos", URI: srv.URI()},
		},
		Collection: &CollectionTarget{Client: client, Database: dbName, Collection: "usertable", Every: 400 * time.Millisecond},
	})
	t.Cleanup(func() { s.Stop() })
	var inserted int64
	minEnd, deadline := begin.Add(1200*time.Millisecond), begin.Add(30*time.Second)
	for ; time.Now().Before(minEnd) || answered.count("serverStatus") < 3 || answered.count("collStats") < 2; inserted++ {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s: %d serverStatus and %d collStats answered; want 3 and 2", answered.count("serverStatus"), answered.count("collStats"))
		}
		ictx, icancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := coll.InsertOne(ictx, bson.D{{Key: "_id", Value: inserted}, {Key: "field0", Value: "x"}})
		icancel()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // the pace of the inserts
	}
	cancel()
	r := s.Stop()
	elapsed := time.Since(begin)

	// shard0: the three samples waited for and the last one. mongos, on a
	// ticker of its own: at least the first and the last. Neither has more
	// than the first, one per interval of the whole phase, and the last.
	maxSamples := 2 + int(elapsed/interval)
	checkWireProcess(t, &r.Processes[0], 4, maxSamples)
	checkWireProcess(t, &r.Processes[1], 2, maxSamples)
	checkWireCollection(t, r.Collection, dbName+".usertable", inserted)
}

// checkWireProcess checks a process's report: samples without errors, the
// fields mongo-java-server reports present, every other one absent.
func checkWireProcess(t *testing.T, p *ProcessPayload, minSamples, maxSamples int) {
	t.Helper()
	s := p.Series
	sum := p.Summary()
	t.Logf("%s: %d samples, %d points of %d ms, %d errors (%s), absent %q", p.Pod, s.Samples(), len(s.Points), s.IntervalMillis,
		p.Errors, p.LastError, s.Absent)
	if p.Errors != 0 {
		t.Errorf("%s: %d errors, last %s", p.Pod, p.Errors, p.LastError)
	}
	if n := s.Samples(); n < minSamples || n > maxSamples {
		t.Errorf("%s: %d samples; want %d to %d", p.Pod, n, minSamples, maxSamples)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("%s: %v", p.Pod, err)
	}
	if s.Version != "6.0.0" || s.Restarts != 0 || sum.Role != p.Role {
		t.Errorf("%s: version %q, restarts %d, role %q", p.Pod, s.Version, s.Restarts, sum.Role)
	}
	if sum.PeakConnections == nil || *sum.PeakConnections < 1 || sum.MeanConnections == nil {
		t.Errorf("%s: connections %v, %v", p.Pod, sum.PeakConnections, sum.MeanConnections)
	}
	for _, field := range []string{"version", "uptimeMillis", "connections.current"} {
		if slices.Contains(s.Absent, field) {
			t.Errorf("%s: %s reported absent", p.Pod, field)
		}
	}
	for _, field := range []string{
		"opcounters.insert", "opcounters.command", "network.bytesIn", "connections.totalCreated",
		"wiredTiger.cache.bytes currently in the cache", "wiredTiger.concurrentTransactions.read.available",
		"globalLock.currentQueue.total", "mem.resident",
	} {
		if !slices.Contains(s.Absent, field) {
			t.Errorf("%s: %s not reported absent", p.Pod, field)
		}
	}
	// Absent is nil, never a zero pretending to be data.
	if o := sum.OpsPerSecond; o.Insert != nil || o.Command != nil || sum.MeanNetInMBps != nil || sum.MaxCacheUsedPercent != nil ||
		sum.EvictionsByAppThreads != nil || sum.MinReadTicketsAvailable != nil || sum.MaxQueue != nil {
		t.Errorf("%s: summary has values the server never reported: %+v", p.Pod, sum)
	}
	for i, pt := range s.Points {
		for c := range NumCounters {
			if pt.Counters[c] != (Delta{}) {
				t.Errorf("%s: point %d has %s %+v", p.Pod, i, c, pt.Counters[c])
			}
		}
	}
}

// checkWireCollection checks the collection statistics: taken during the
// phase and at its end, through the collStats command, with the count of
// documents inserted and the index sizes absent.
func checkWireCollection(t *testing.T, c *CollectionPayload, namespace string, inserted int64) {
	t.Helper()
	if c == nil || c.Final == nil {
		t.Fatalf("no final collection statistics: %+v", c)
	}
	final, _ := json.Marshal(c.Final)
	t.Logf("collection: final %s, %d growth entries, %d errors (%s)", final, len(c.Growth), c.Errors, c.LastError)
	f := c.Final
	if c.Errors != 0 || f.Source != SourceCommand || f.Namespace != namespace {
		t.Errorf("collection: %d errors (%s), source %q, namespace %q", c.Errors, c.LastError, f.Source, f.Namespace)
	}
	if f.Count == nil || *f.Count != inserted || f.Size == nil || *f.Size <= 0 {
		t.Errorf("final count %v, size %v; %d inserted", f.Count, f.Size, inserted)
	}
	if f.TotalIndexSize != nil || f.IndexSizes != nil || !slices.Equal(f.Absent, []string{"totalIndexSize", "indexSizes"}) || f.Shards != nil {
		t.Errorf("final: index sizes %v %v, absent %q, shards %v", f.TotalIndexSize, f.IndexSizes, f.Absent, f.Shards)
	}
	if len(c.Growth) < 2 {
		t.Errorf("%d growth entries", len(c.Growth))
	}
	for i := 1; i < len(c.Growth); i++ {
		if *c.Growth[i].Count < *c.Growth[i-1].Count || !c.Growth[i].Time.After(c.Growth[i-1].Time) {
			t.Errorf("growth %d: count %d at %v after %d at %v", i, *c.Growth[i].Count, c.Growth[i].Time, *c.Growth[i-1].Count, c.Growth[i-1].Time)
		}
	}
}

// Stop takes a last sample even after the context given to Start has
// ended: with an interval longer than the phase there are exactly two, the
// first and the last. The phase ends once the first sample is in (the
// server answered it), however long that takes.
func TestSamplerLastSampleAfterCancel(t *testing.T) {
	srv := wireserver.Shared(t)
	client, answered := monitoredClient(t, srv.URI())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var handed []Sample // OnSample's, on the one process's goroutine; read after Stop
	s := Start(ctx, Config{Interval: time.Hour, Processes: []Process{{Role: "standalone", Pod: "mongod", Client: client}},
		OnSample: func(p Process, s *Sample) {
			if p.Pod == "mongod" {
				handed = append(handed, *s)
			}
		}})
	t.Cleanup(func() { s.Stop() })
	answered.waitFor(t, "serverStatus", 1)
	cancel()
	r := s.Stop()
	p := r.Processes[0]
	if n := p.Series.Samples(); n != 2 || p.Errors != 0 {
		t.Fatalf("%d samples, %d errors (%s); want 2 and none", n, p.Errors, p.LastError)
	}
	if n := answered.count("serverStatus"); n != 2 {
		t.Errorf("the server answered %d serverStatus; want 2", n)
	}
	if g := p.Series.Gauge(GaugeConnections); g.N != 2 {
		t.Errorf("connections %+v", g)
	}
	// OnSample (the loader's live metrics) was handed each sample.
	if len(handed) != 2 || !handed[1].Gauges[GaugeConnections].Valid || !handed[0].Time.Before(handed[1].Time) {
		t.Errorf("OnSample got %d samples: %+v", len(handed), handed)
	}
}
