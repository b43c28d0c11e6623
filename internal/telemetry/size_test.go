package telemetry

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// The size of a phase's report at its largest: ten processes (8 shards, a
// config server, a mongos) with every field present in every one of
// MaxSeriesPoints points, and MaxSeriesPoints collection statistics of 8
// shards. Gzipped, as results travel, it must leave most of a result's
// MaxEncodedBytes to the client's measurements (raw JSON is logged: it is
// over a ConfigMap's 1 MiB, so it must not travel uncompressed).
func TestPayloadSize(t *testing.T) {
	r, one := largestPayload(t)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %d KiB of JSON, %d KiB gzipped (per process series: %d KiB of JSON)",
		len(data)>>10, zipped.Len()>>10, len(mustJSON(t, one))>>10)
	if zipped.Len() > results.MaxEncodedBytes/4 {
		t.Errorf("report is %d bytes gzipped, more than a quarter of a result's %d", zipped.Len(), results.MaxEncodedBytes)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// largestPayload is a phase's report at its largest (see TestPayloadSize),
// and one of its series.
func largestPayload(t *testing.T) (*Payload, *Series) {
	t.Helper()
	full := Extract(readDoc(t, "serverstatus-8.0.json"), t0)
	r := &Payload{Start: t0, End: t0.Add(time.Hour), Collection: &CollectionPayload{}}
	for p := range 10 {
		// Samples every half interval, with values that differ by process
		// and by sample (repeated values would compress unrealistically).
		samples := make([]Sample, 2*results.MaxSeriesPoints)
		for i := range samples {
			s := full
			s.Time = t0.Add(time.Duration(i) * time.Second)
			s.UptimeMillis.V += int64(i) * 1000
			for c := range s.Counters {
				s.Counters[c].V += int64(i) * int64(1000+c*7919+(i*p)%13)
			}
			for g := range s.Gauges {
				s.Gauges[g].V *= 1 + float64((i*31+p*7+g)%17)/100
			}
			samples[i] = s
		}
		series := buildSeries(time.Second, samples...)
		if len(series.Points) != results.MaxSeriesPoints {
			t.Fatalf("%d points", len(series.Points))
		}
		r.Processes = append(r.Processes, ProcessPayload{Role: "shard", Pod: fmt.Sprintf("mb-shard%d-0", p), Series: series})
	}
	stats, err := parseCollStatsStage(readDocs(t, "collstats-sharded.json"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		stats.Shards = append(stats.Shards, stats.Shards...) // 8 shards
	}
	for range results.MaxSeriesPoints {
		r.Collection.Growth = append(r.Collection.Growth, stats)
	}
	r.Collection.Final = &stats
	return r, &r.Processes[0].Series
}
