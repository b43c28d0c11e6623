package controllers_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/topology"
)

// telemetryStart is when the synthetic telemetry of a phase starts.
var telemetryStart = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// telemetrySamples is the number of samples of each process, one a second.
const telemetrySamples = 6

// telemetryPayload is what loader 0's sampler would report for a phase of
// run: every process of the topology sampled once a second with
// SeriesBuilder, with numbers the tests know. Process j (in topology
// order), over telemetrySamples samples i = 0…5:
//   - opcounters.insert grows 1000·(j+1) a second, query 200, command 10;
//   - network.bytesIn 2·10^6 a second, bytesOut 3·10^6;
//   - 5 pages a second evicted by application threads, read from "pages
//     evicted by application threads" (7.0/8.0) for even j, from attempts
//     minus failures (8.1 on) for odd j;
//   - connections.current 10+j+i (peak 15+j, mean 12.5+j);
//   - cache used 40+i % (max 45), dirty 5+i % (max 10);
//   - read tickets available 128-i (min 123), write 128-2i (min 118);
//   - globalLock.currentQueue.total i (max 5);
//   - connections.available 100-10i (min 50);
//   - a WiredTiger cache of 1 GiB, resized to 2 GiB at i=3 for the config
//     server (j=0);
//   - for replica set members (all but mongos), a primary throughout whose
//     electionId changes at i=4 for j=1 (one primary change).
//
// The collection's final statistics are split over the run's shards.
func telemetryPayload(run *benchv1.BenchmarkRun) *telemetry.Payload {
	rep := &telemetry.Payload{Start: telemetryStart, End: telemetryStart.Add(telemetrySamples * time.Second)}
	for j, p := range topology.Processes(run) {
		b := telemetry.NewSeriesBuilder(telemetryStart, time.Second)
		for i := 0; i < telemetrySamples; i++ {
			s := telemetry.Sample{Time: telemetryStart.Add(time.Duration(i) * time.Second), Version: "8.0.4",
				UptimeMillis: opt(int64(100000 + 1000*i)), EvictedByAppFrom: telemetry.EvictionsPagesEvicted}
			if j%2 == 1 {
				s.EvictedByAppFrom = telemetry.EvictionsAttemptsMinusFailures
			}
			for c, v := range map[telemetry.Counter]int64{
				telemetry.CounterInsert: int64(1000 * (j + 1) * i), telemetry.CounterQuery: int64(200 * i),
				telemetry.CounterUpdate: 0, telemetry.CounterDelete: 0, telemetry.CounterGetmore: 0,
				telemetry.CounterCommand: int64(10 * i), telemetry.CounterNetIn: int64(2e6 * i),
				telemetry.CounterNetOut: int64(3e6 * i), telemetry.CounterEvictedByApp: int64(5 * i),
				telemetry.CounterConnectionsCreated: int64(20 + i),
			} {
				s.Counters[c] = opt(v)
			}
			for g, v := range map[telemetry.Gauge]float64{
				telemetry.GaugeConnections: float64(10 + j + i), telemetry.GaugeCacheUsedPercent: float64(40 + i),
				telemetry.GaugeCacheDirtyPercent: float64(5 + i), telemetry.GaugeReadTicketsAvailable: float64(128 - i),
				telemetry.GaugeWriteTicketsAvailable: float64(128 - 2*i), telemetry.GaugeQueueTotal: float64(i),
				telemetry.GaugeResidentMiB: 900, telemetry.GaugeConnectionsAvailable: float64(100 - 10*i),
				telemetry.GaugeCacheMaxBytes: float64(int64(1) << 30),
			} {
				s.Gauges[g] = opt(v)
			}
			if j == 0 && i >= 3 {
				s.Gauges[telemetry.GaugeCacheMaxBytes] = opt(float64(int64(2) << 30))
			}
			if p.Role != benchv1.RoleMongos {
				s.Repl = telemetry.ReplView{Member: true, WritablePrimary: true, Primary: p.Name + ":27018", ElectionID: "7fffffff0000000000000001"}
				if j == 1 && i >= 4 {
					s.Repl.ElectionID = "7fffffff0000000000000002"
				}
			}
			b.Add(&s)
		}
		rep.Processes = append(rep.Processes, telemetry.ProcessPayload{Role: string(p.Role), Pod: p.Name, Series: b.Series()})
	}
	final := &telemetry.CollectionStats{Time: rep.End, Namespace: topology.Namespace, Source: telemetry.SourceAggregate}
	shards := 1
	if run.Spec.Topology.Shards != nil {
		shards = int(*run.Spec.Topology.Shards)
	}
	var total telemetry.CollectionSizes
	total.IndexSizes = map[string]int64{}
	for i := 0; i < shards; i++ {
		sz := telemetry.CollectionSizes{Count: ptr64(2500), Size: ptr64(2500 * 1100), StorageSize: ptr64(1 << 20),
			TotalIndexSize: ptr64(96 << 10), IndexSizes: map[string]int64{"_id_": 64 << 10, "_id_hashed": 32 << 10}}
		if run.Spec.Topology.Mode == benchv1.TopologySharded {
			final.Shards = append(final.Shards, telemetry.ShardSizes{Shard: topology.ShardName(i), CollectionSizes: sz})
		}
		total.Count, total.Size = add(total.Count, *sz.Count), add(total.Size, *sz.Size)
		total.StorageSize, total.TotalIndexSize = add(total.StorageSize, *sz.StorageSize), add(total.TotalIndexSize, *sz.TotalIndexSize)
		for k, v := range sz.IndexSizes {
			total.IndexSizes[k] += v
		}
	}
	final.CollectionSizes = total
	rep.Collection = &telemetry.CollectionPayload{Final: final}
	return rep
}

func opt[T int64 | float64](v T) telemetry.Opt[T] { return telemetry.Opt[T]{V: v, Valid: true} }

func ptr64(v int64) *int64 { return &v }

func add(p *int64, v int64) *int64 {
	if p == nil {
		return &v
	}
	return ptr64(*p + v)
}

// encodeTelemetry is the loader's encoding of a report: gzip(JSON).
func encodeTelemetry(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gz compresses raw bytes (for payloads that are not a report).
func gz(t testing.TB, raw string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := fmt.Fprint(zw, raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
