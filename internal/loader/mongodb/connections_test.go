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
			// The monitor's connections (at most 2) and the pool's.
			before := srv.Connections()
			if before < int64(c.want) || before > int64(c.want)+3 {
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
