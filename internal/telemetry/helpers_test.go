package telemetry

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// t0 is an arbitrary start for synthetic samples.
var t0 = time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)

// readDoc reads an extended JSON document from testdata.
func readDoc(t testing.TB, name string) bson.Raw {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc bson.Raw
	if err := bson.UnmarshalExtJSON(b, false, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc
}

// readDocs reads a JSON array of extended JSON documents from testdata.
func readDocs(t testing.TB, name string) []bson.Raw {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	docs := make([]bson.Raw, len(parts))
	for i, p := range parts {
		if err := bson.UnmarshalExtJSON(p, false, &docs[i]); err != nil {
			t.Fatalf("%s[%d]: %v", name, i, err)
		}
	}
	return docs
}

func iv(v int64) Opt[int64]     { return Opt[int64]{V: v, Valid: true} }
func fv(v float64) Opt[float64] { return Opt[float64]{V: v, Valid: true} }

// sampleAt is a synthetic sample: uptime and the given counters and gauges.
func sampleAt(at time.Time, uptimeMillis int64, counters map[Counter]int64, gauges map[Gauge]float64) Sample {
	s := Sample{Time: at, Version: "8.0.4", UptimeMillis: iv(uptimeMillis)}
	for c, v := range counters {
		s.Counters[c] = iv(v)
	}
	for g, v := range gauges {
		s.Gauges[g] = fv(v)
	}
	return s
}

// buildSeries is the series of samples taken from t0 on.
func buildSeries(interval time.Duration, samples ...Sample) Series {
	b := NewSeriesBuilder(t0, interval)
	for i := range samples {
		b.Add(&samples[i])
	}
	return b.Series()
}

// equalJSON fails the test, showing both as JSON, when got and want differ.
func equalJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s\n got %s\nwant %s", what, g, w)
	}
}

// withEvictionSource sets what a synthetic sample's app evictions were
// read from.
func withEvictionSource(s Sample, from EvictionSource) Sample {
	s.EvictedByAppFrom = from
	return s
}

// commandCounter counts the commands a client's server answered, by name,
// for a test to wait on what a Sampler has done instead of sleeping: a
// serverStatus that succeeded on a Sampler's client is a sample in its
// series (the reply is in hand; only a failed call looks at the context).
type commandCounter struct {
	mu        sync.Mutex
	succeeded map[string]int
}

// monitoredClient connects to uri with a command monitor that counts the
// commands the server answered.
func monitoredClient(t *testing.T, uri string) (*mongo.Client, *commandCounter) {
	t.Helper()
	cc := &commandCounter{succeeded: map[string]int{}}
	mon := &event.CommandMonitor{Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
		cc.mu.Lock()
		cc.succeeded[e.CommandName]++
		cc.mu.Unlock()
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetMonitor(mon).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client, cc
}

// count is how many name commands the server has answered so far.
func (cc *commandCounter) count(name string) int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.succeeded[name]
}

// waitFor polls until the server has answered at least n name commands; a
// generous deadline, paid only when the Sampler is broken.
func (cc *commandCounter) waitFor(t *testing.T, name string, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); cc.count(name) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s, %d %s answered; want %d", cc.count(name), name, n)
		}
		time.Sleep(5 * time.Millisecond) // poll interval, bounded by the deadline
	}
}
