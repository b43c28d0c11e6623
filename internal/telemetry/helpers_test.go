package telemetry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
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
