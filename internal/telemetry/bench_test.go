package telemetry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// The cost of sampling, on the loader's CPU:
//
//	go test ./internal/telemetry -run '^$' -bench . -benchtime 20000x
//
// BenchmarkSampleRound is one sample's extraction and bookkeeping (Extract
// and SeriesBuilder.Add) of a serverStatus reply of a realistic size;
// BenchmarkServerStatusCall adds the driver's round trip to a stub server
// in a child process (so this process's CPU time is the client's alone),
// whose reply is tiny: the difference from a real reply is reading ~40 KB
// more from the socket. Each reports the CPU of one sample of one process
// and what ten processes sampled once a second cost, in % of one core.

// realisticServerStatus is the recorded 8.0 reply padded to the size of a
// real one (serverStatus without metrics and locks is tens of KB,
// mostly WiredTiger statistics): the cache section gets 150 statistics with
// the ones read here among them in alphabetical order, wiredTiger 20 more
// sections of 30 and the top level 15 more sections of 20.
func realisticServerStatus(tb testing.TB) bson.Raw {
	tb.Helper()
	var doc bson.D
	if err := bson.Unmarshal(readDoc(tb, "serverstatus-8.0.json"), &doc); err != nil {
		tb.Fatal(err)
	}
	noise := func(prefix string, n int) bson.D {
		d := make(bson.D, n)
		for i := range d {
			d[i] = bson.E{Key: fmt.Sprintf("%s statistic number %03d of this section", prefix, i), Value: int64(i) * 7919}
		}
		return d
	}
	for i, e := range doc {
		if e.Key != "wiredTiger" {
			continue
		}
		wt := e.Value.(bson.D)
		for j, s := range wt {
			if s.Key == "cache" {
				cache := append(s.Value.(bson.D), noise("cache", 150-len(s.Value.(bson.D)))...)
				slices.SortFunc(cache, func(a, b bson.E) int { return strings.Compare(a.Key, b.Key) })
				wt[j].Value = cache
			}
		}
		for k := range 20 {
			wt = append(wt, bson.E{Key: fmt.Sprintf("section-%02d", k), Value: noise("wt", 30)})
		}
		doc[i].Value = wt
	}
	for k := range 15 {
		doc = slices.Insert(doc, 8, bson.E{Key: fmt.Sprintf("section%02d", k), Value: noise("top", 20)})
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func TestRealisticServerStatus(t *testing.T) {
	doc := realisticServerStatus(t)
	if n := len(doc); n < 30_000 || n > 80_000 {
		t.Errorf("padded reply is %d bytes", n)
	}
	got, want := Extract(doc, t0), Extract(readDoc(t, "serverstatus-8.0.json"), t0)
	if got != want {
		t.Errorf("padding changed the sample:\n got %+v\nwant %+v", got, want)
	}
}

func BenchmarkSampleRound(b *testing.B) {
	doc := realisticServerStatus(b)
	builder := NewSeriesBuilder(t0, time.Second)
	at := t0
	b.ReportAllocs()
	for b.Loop() {
		at = at.Add(time.Second)
		s := Extract(doc, at)
		builder.Add(&s)
	}
	reportCost(b, b.Elapsed()/time.Duration(b.N))
	b.ReportMetric(float64(len(doc)), "reply-bytes")
}

func BenchmarkServerStatusCall(b *testing.B) {
	child := stubmongo.StartChild(b)
	client, err := mongo.Connect(options.Client().ApplyURI(child.URI()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	ctx := context.Background()
	admin := client.Database("admin")
	if err := admin.RunCommand(ctx, serverStatusCommand).Err(); err != nil {
		b.Fatal(err)
	}
	builder := NewSeriesBuilder(time.Now(), time.Second)
	b.ReportAllocs()
	cpu0 := stubmongo.ProcessCPU()
	for b.Loop() {
		cctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		t := time.Now()
		doc, err := admin.RunCommand(cctx, serverStatusCommand).Raw()
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		s := Extract(doc, t)
		builder.Add(&s)
	}
	reportCost(b, (stubmongo.ProcessCPU()-cpu0)/time.Duration(b.N))
}

// reportCost reports the CPU of one sample and of ten processes sampled
// once a second, in % of one core.
func reportCost(b *testing.B, perSample time.Duration) {
	b.ReportMetric(float64(perSample.Nanoseconds())/1e3, "cpu-us/sample")
	b.ReportMetric(float64(10*perSample.Nanoseconds())/1e9*100, "%core@10proc/s")
}
