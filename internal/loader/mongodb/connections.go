package mongodb

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Held says how the pool was warmed before a phase's clock started.
type Held struct {
	// Wanted is the number of connections asked for (one per thread, at
	// most maxPoolSize); Connections the number the pool was seen to
	// hold: distinct server connections that answered at the same time
	// (Wanted when not Verified).
	Wanted, Connections int
	// Took is how long warming took.
	Took time.Duration
	// Verified is false when the server did not hold awaitable hellos
	// (a test double): the pool was exercised but its size not proven.
	Verified bool
}

// commandNotFound is MongoDB's CommandNotFound error code.
const commandNotFound = 59

// Bounds of holding connections: the first hold, its growth per round
// while the pool is still opening connections, and the rounds.
const (
	firstHold = 100 * time.Millisecond
	maxHold   = 5 * time.Second
	maxRounds = 8
)

// HoldConnections makes the pool open n connections to the server before
// the measured window, so that no thread pays for a connection
// handshake inside it. The driver opens connections only when a checkout
// finds none idle, at most maxConnecting (2) at a time, and its minPoolSize
// maintenance adds at most 10 every 10 s (x/mongo/driver/topology/pool.go,
// driver v2.9), so neither the per-thread pings nor minPoolSize alone fill
// a pool of 32 connections before the clock starts: n short commands share
// the few connections that are already idle.
//
// Here n awaitable hellos ({hello: 1, topologyVersion, maxAwaitTimeMS})
// run at once. The server holds each for maxAwaitTimeMS while its topology
// does not change (mongod and mongos alike: jstests/noPassthrough/
// awaitable_hello.js in mongodb/mongo), so each keeps its connection
// checked out and the pool has to open n of them. Every hello reply names
// its server-side connectionId (src/mongo/db/repl/replication_info.cpp,
// src/mongo/s/commands/cluster_hello_cmd.cpp): n distinct ids in one round
// prove the pool held n connections at once. While the pool is still
// opening them the round is repeated with a longer hold. The connections
// stay: the pool closes idle connections only after maxIdleTimeMS (unset:
// never) and keeps minPoolSize (set to n by NewClient's caller) open.
//
// The commands run without a context deadline: the driver turns a deadline
// into maxTimeMS, which the hold does not need; each round is bounded by a
// timer of its own.
func (c *Client) HoldConnections(ctx context.Context, n int) (Held, error) {
	start := time.Now()
	held := Held{Wanted: n}
	if n < 1 {
		return held, nil
	}
	admin := c.client.Database("admin")
	var first bson.Raw
	name := "hello"
	pctx, cancel := context.WithTimeout(ctx, c.cfg.OperationTimeout)
	err := admin.RunCommand(pctx, bson.D{{Key: name, Value: 1}}).Decode(&first)
	if mongo.ErrorCodes(err) != nil && slices.Contains(mongo.ErrorCodes(err), commandNotFound) {
		// hello came with 4.4.2 and 5.0; its legacy name, still served
		// by 8.0, is awaitable alike (awaitable_hello.js runs both).
		name = "isMaster"
		err = admin.RunCommand(pctx, bson.D{{Key: name, Value: 1}}).Decode(&first)
	}
	cancel()
	if err != nil {
		return held, fmt.Errorf("%s: %w", name, err)
	}
	tv, ok := first.Lookup("topologyVersion").DocumentOK()
	if !ok {
		// A server without the awaitable hello (older than 4.4, which
		// driver v2 refuses anyway, or a test double): exercise the pool
		// with n concurrent pings, unverified.
		_, err := c.helloRound(ctx, admin, name, n, nil, 0)
		held.Connections, held.Took = n, time.Since(start)
		return held, err
	}
	hold := firstHold
	for round := 0; round < maxRounds; round++ {
		rstart := time.Now()
		ids, err := c.helloRound(ctx, admin, name, n, tv, hold)
		if err != nil {
			return held, err
		}
		held.Connections = max(held.Connections, len(ids))
		if time.Since(rstart) < hold/2 {
			// Answered without waiting: the server does not hold
			// awaitable hellos, so distinct ids prove nothing.
			held.Connections, held.Took = n, time.Since(start)
			return held, nil
		}
		if len(ids) >= n {
			held.Verified = true
			break
		}
		hold = min(2*hold, maxHold)
	}
	held.Took = time.Since(start)
	return held, nil
}

// helloRound runs n hellos at once, awaitable for hold when tv is set, and
// returns the distinct server connection ids that answered.
func (c *Client) helloRound(ctx context.Context, admin *mongo.Database, name string, n int, tv bson.Raw,
	hold time.Duration) (map[int64]bool, error) {
	cmd := bson.D{{Key: name, Value: 1}}
	if tv != nil {
		cmd = append(cmd, bson.E{Key: "topologyVersion", Value: tv}, bson.E{Key: "maxAwaitTimeMS", Value: hold.Milliseconds()})
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Each command gets the operation timeout on top of the hold, enforced
	// by cancelling: a hung server cannot hold the phase.
	timer := time.AfterFunc(hold+c.cfg.OperationTimeout, cancel)
	defer timer.Stop()
	var (
		mu   sync.Mutex
		ids  = map[int64]bool{}
		errs []error
		wg   sync.WaitGroup
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res bson.Raw
			err := admin.RunCommand(rctx, cmd).Decode(&res)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			if id, ok := res.Lookup("connectionId").AsInt64OK(); ok {
				ids[id] = true
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return ids, fmt.Errorf("hold %d connections: %d of %d hellos failed, the first: %w", n, len(errs), n, errs[0])
	}
	return ids, nil
}
