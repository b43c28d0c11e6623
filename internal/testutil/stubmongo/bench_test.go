package stubmongo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// BenchmarkBareDriver is the floor for any Go YCSB loader on driver v2: the
// calls the YCSB MongoDB binding makes (insertOne of a YCSB-shaped document,
// find by _id decoded into a bson.Raw, updateOne $set of one field), with no
// key generator, no histogram and a document built once, against a stub
// server that costs next to nothing. The stub runs in a child process (this
// test binary re-executed), so this process's CPU time is the client's only.
//
// Metrics besides ns/op (wall time per op over all goroutines) and allocs/op:
//
//	cpu-us/op         client CPU (getrusage RUSAGE_SELF, user+sys, all threads,
//	                  GC included) per operation
//	server-cpu-us/op  the stub server process's CPU per operation
//
// Pinned to one core (the child inherits the pinning unless
// STUBMONGO_SERVER_CPUS names other CPUs for it):
//
//	taskset -c 0 go test ./internal/testutil/stubmongo -run XXX -bench BareDriver -benchtime 20000x
//	STUBMONGO_SERVER_CPUS=1 taskset -c 0 go test ./internal/testutil/stubmongo -run XXX -bench BareDriver -benchtime 20000x
func BenchmarkBareDriver(b *testing.B) {
	child := stubmongo.StartChild(b)
	client, err := mongo.Connect(options.Client().ApplyURI(child.URI()))
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	b.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	coll := client.Database("ycsb").Collection("usertable")

	// The YCSB record: field0..field9, 100 random bytes each, made once.
	rng := rand.New(rand.NewPCG(7, 11))
	values := make([][]byte, 10)
	for i := range values {
		values[i] = make([]byte, 100)
		for j := range values[i] {
			values[i][j] = byte(rng.Uint32())
		}
	}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "field3", Value: bson.Binary{Data: values[3]}}}}}

	ops := []struct {
		name string
		kind func(stubmongo.Counts) uint64 // the served commands it should count
		do   func(ctx context.Context, w *worker, key string) error
	}{
		{"insert", func(c stubmongo.Counts) uint64 { return c.Insert }, func(ctx context.Context, w *worker, key string) error {
			w.doc[0].Value = key
			_, err := coll.InsertOne(ctx, w.doc)
			return err
		}},
		{"read", func(c stubmongo.Counts) uint64 { return c.Find }, func(ctx context.Context, w *worker, key string) error {
			w.filter[0].Value = key
			raw, err := coll.FindOne(ctx, w.filter).Raw()
			if err == nil && len(raw) == 0 {
				err = fmt.Errorf("find %s: empty document", key)
			}
			return err
		}},
		{"update", func(c stubmongo.Counts) uint64 { return c.Update }, func(ctx context.Context, w *worker, key string) error {
			w.filter[0].Value = key
			res, err := coll.UpdateOne(ctx, w.filter, update)
			if err == nil && res.MatchedCount != 1 {
				err = fmt.Errorf("update %s: matched %d", key, res.MatchedCount)
			}
			return err
		}},
	}

	for _, op := range ops {
		for _, goroutines := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/goroutines=%d", op.name, goroutines), func(b *testing.B) {
				newWorker := func() *worker { return newYCSBWorker(values) }
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				defer cancel()

				// Warm up: open the pool's connections and the driver's caches
				// outside the measurement.
				if err := parallel(ctx, goroutines, 50*goroutines, newWorker, op.do); err != nil {
					b.Fatalf("warm-up: %v", err)
				}
				before, err := stubmongo.QueryStats(ctx, client)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu0 := stubmongo.ProcessCPU()
				b.ResetTimer()
				err = parallel(ctx, goroutines, b.N, newWorker, op.do)
				b.StopTimer()
				cpu := stubmongo.ProcessCPU() - cpu0
				if err != nil {
					b.Fatal(err)
				}
				after, err := stubmongo.QueryStats(ctx, client)
				if err != nil {
					b.Fatal(err)
				}
				served := after.Sub(before)
				if got := op.kind(served.Counts); got != uint64(b.N) {
					b.Fatalf("the server counted %d %s commands for b.N = %d", got, op.name, b.N)
				}
				n := float64(b.N)
				b.ReportMetric(float64(cpu.Nanoseconds())/1e3/n, "cpu-us/op")
				b.ReportMetric(float64(served.CPU.Nanoseconds())/1e3/n, "server-cpu-us/op")
			})
		}
	}
}

// worker is one goroutine's reusable state: a YCSB document whose _id is
// replaced per insert, a filter whose _id is replaced per read/update, and
// the buffer keys are formatted in.
type worker struct {
	doc    bson.D
	filter bson.D
	keyBuf []byte
}

func newYCSBWorker(values [][]byte) *worker {
	w := &worker{
		doc:    bson.D{{Key: "_id", Value: ""}},
		filter: bson.D{{Key: "_id", Value: ""}},
		keyBuf: append(make([]byte, 0, 32), "user"...),
	}
	for i, v := range values {
		w.doc = append(w.doc, bson.E{Key: "field" + strconv.Itoa(i), Value: bson.Binary{Data: v}})
	}
	return w
}

// parallel runs n operations split over g goroutines, each with its own
// worker; keys are "user<i>" with i unique over the run. It returns the first
// error, after which the goroutines stop early.
func parallel(ctx context.Context, g, n int, newWorker func() *worker,
	do func(context.Context, *worker, string) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for id := range g {
		count := n / g
		if id < n%g {
			count++
		}
		w := newWorker()
		wg.Go(func() {
			for i := range count {
				if ctx.Err() != nil {
					return
				}
				// One allocation: the key string the driver needs.
				key := string(strconv.AppendUint(w.keyBuf[:4], uint64(i*g+id), 10))
				if err := do(ctx, w, key); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx) // nil unless an operation failed or ctx expired
}
