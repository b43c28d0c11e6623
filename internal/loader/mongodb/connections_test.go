package mongodb

import (
	"context"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// TestHoldConnections: against a server that holds awaitable hellos as
// mongod and mongos do, the pool ends up holding one connection per thread
// (at most maxPoolSize), proven by as many distinct connectionIds, and the
// driver keeps them (minPoolSize): a measured window that follows opens
// none.
func TestHoldConnections(t *testing.T) {
	for _, c := range []struct {
		name    string
		query   string
		threads int
		want    int
	}{
		{"a connection per thread", "", 32, 32},
		{"a smaller pool", "&maxPoolSize=8", 32, 8},
		{"the URL's minPoolSize", "&minPoolSize=2", 16, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := stubmongo.Start(t)
			cfg := Config{URL: srv.URI() + c.query, Database: "ycsb", BatchSize: 1, OperationTimeout: 5 * time.Second, Threads: c.threads}
			ctx := context.Background()
			client, err := NewClient(ctx, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = client.Close(ctx) }()
			n := cfg.PoolConnections(ptr(client.PoolSize()))
			if n != c.want {
				t.Fatalf("asks for %d connections, want %d", n, c.want)
			}
			held, err := client.HoldConnections(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if !held.Verified || held.Connections != c.want || held.Wanted != c.want || held.Took <= 0 {
				t.Fatalf("held %+v", held)
			}
			// The monitor's connections (at most 2) and the pool's. The
			// pool may hold a few more than asked: while the threads check
			// out their connections, the driver's minPoolSize maintenance
			// asks for up to 10 at a time too, and says it may overshoot
			// (v2 x/mongo/driver/topology/pool.go, maintain). Once those
			// are open the pool stops growing.
			before := settledConnections(t, srv)
			overshoot := min(10, int64(client.PoolSize())-int64(c.want))
			if before < int64(c.want) || before > int64(c.want)+2+overshoot {
				t.Errorf("the server accepted %d connections for %d", before, c.want)
			}
			// Threads' operations now find their connections open.
			db := client.Driver().Database("ycsb")
			done := make(chan error, c.want)
			for range c.want {
				go func() { done <- db.RunCommand(ctx, map[string]int{"ping": 1}).Err() }()
			}
			for range c.want {
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
			if after := srv.Connections(); after != before {
				t.Errorf("%d new connections after the pool was held", after-before)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// settledConnections is the number of connections the server accepted,
// once it has stayed the same over three polls 50 ms apart (bounded at
// 10 s: a pool that never stops opening connections fails).
func settledConnections(t *testing.T, srv *stubmongo.Server) int64 {
	t.Helper()
	n, same := srv.Connections(), 0
	for deadline := time.Now().Add(10 * time.Second); same < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("the pool was still opening connections after 10s (%d)", n)
		}
		time.Sleep(50 * time.Millisecond) // poll interval, bounded by the deadline
		if m := srv.Connections(); m == n {
			same++
		} else {
			n, same = m, 0
		}
	}
	return n
}
