package growth

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// BenchmarkMongoStoreInsert adds the driver: the engine's insert path
// through MongoStore to the stub server (internal/testutil/stubmongo, in a
// child process so it does not share this process's CPU time), w:1 and
// w:0, insertOne and batches of 100: ns/op and allocs/op per call, ns/doc,
// and this process's CPU per document (cpu-us/doc: the client's, driver
// included).
func BenchmarkMongoStoreInsert(b *testing.B) {
	child := stubmongo.StartChild(b)
	client, err := mongo.Connect(options.Client().ApplyURI(child.URI()))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	for _, tc := range []struct {
		name, mode string
		batch      int64
	}{
		{"acknowledged", results.InsertAcknowledged, 1},
		{"unacknowledged", results.InsertUnacknowledged, 1},
		{"batch=100", results.InsertBatch, 100},
	} {
		b.Run(tc.name, func(b *testing.B) {
			kv := []string{contract.PropGrowthPayloadSize, "945", contract.PropGrowthInsertMode, tc.mode}
			if tc.batch > 1 {
				kv = append(kv, contract.PropGrowthBatchSize, "100")
			}
			cfg := testConfig(b, 1_000_000_000, 100_000_000, kv...)
			store, err := NewMongoStore(MongoOptions{Client: client, Database: "bench", Collection: "growth", InsertMode: tc.mode,
				OperationTimeout: 30 * time.Second})
			if err != nil {
				b.Fatal(err)
			}
			e, err := newEngine(cfg, store, Options{})
			if err != nil {
				b.Fatal(err)
			}
			w := e.inserters[0]
			ctx := context.Background()
			for i := range int64(100) { // warm up the pool
				if err := w.insert(ctx, i*tc.batch, tc.batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := int64(0)
			cpu0 := stubmongo.ProcessCPU()
			for b.Loop() {
				if err := w.insert(ctx, i, tc.batch); err != nil {
					b.Fatal(err)
				}
				i += tc.batch
			}
			cpu := stubmongo.ProcessCPU() - cpu0
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/doc")
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(i), "cpu-us/doc")
		})
	}
}
