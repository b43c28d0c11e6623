package mongoadmin

import (
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// Pre-splitting a collection with a ranged shard key.
//
// shardCollection on an empty collection with {_id: 1} makes one chunk on
// the database's primary shard. Since 6.0.3 nothing splits it as data
// arrives, and 6.0+ balancers do not move empty chunks, so every record
// would land on one shard. Bootstrap therefore cuts the collection at
// Topology.SplitPoints (split) and moves range i to shard i (moveRange,
// moveChunk before 6.0), after stopping the balancer:
//
//   - manual migrations do not need the balancer: the config server runs a
//     moveRange whatever the balancer mode (Balancer::moveRange in
//     src/mongo/db/s/balancer/balancer.cpp), and MongoDB's own tests stop
//     the balancer "for manual move" (jstests/sharding/migrateMemory.js);
//   - a running balancer would interfere: since 7.0 its AutoMerger merges
//     contiguous chunks of one shard ("The AutoMerger runs in the background
//     as part of balancing operations", docs: core/automerger-concept), which
//     may undo a split before its range moves; balancer.cpp disables the
//     AutoMerger whenever balancing is off.
//
// Every step looks at config.chunks first and after a failure: a boundary
// that exists is not split again (the server refuses it: "new split key ...
// is a boundary key of existing chunk"), a range on its shard is not moved
// again (6.0+ answers ok, older servers 72 "Destination shard cannot be the
// same as source"), so a Job that restarts half-way converges.

// boundKind orders the kinds of chunk bounds: MinKey, a string _id, MaxKey.
type boundKind int

const (
	boundMinKey boundKind = iota
	boundString
	boundMaxKey
)

// bound is one end of a chunk of a collection sharded on {_id: 1} whose _id
// values are strings.
type bound struct {
	kind boundKind
	key  string // boundString
}

func minKeyBound() bound           { return bound{kind: boundMinKey} }
func maxKeyBound() bound           { return bound{kind: boundMaxKey} }
func stringBound(key string) bound { return bound{kind: boundString, key: key} }

// keyDoc is the bound as a shard key document, {_id: <value>}.
func (b bound) keyDoc() bson.D { return bson.D{{Key: idField, Value: b.value()}} }

func (b bound) value() any {
	switch b.kind {
	case boundMinKey:
		return bson.MinKey{}
	case boundMaxKey:
		return bson.MaxKey{}
	}
	return b.key
}

// String renders the bound for messages: MinKey, MaxKey or the quoted key.
func (b bound) String() string {
	switch b.kind {
	case boundMinKey:
		return "MinKey"
	case boundMaxKey:
		return "MaxKey"
	}
	return fmt.Sprintf("%q", b.key)
}

// resultString renders the bound for the bootstrap result.
func (b bound) resultString() string {
	switch b.kind {
	case boundMinKey:
		return results.MinKeyBound
	case boundMaxKey:
		return results.MaxKeyBound
	}
	return b.key
}

// parseBound reads a chunk bound document {_id: <value>}.
func parseBound(doc bson.RawValue) (bound, error) {
	d, ok := doc.DocumentOK()
	if !ok {
		return bound{}, fmt.Errorf("bound %s is not a document", doc)
	}
	v := d.Lookup(idField)
	switch v.Type {
	case bson.TypeMinKey:
		return minKeyBound(), nil
	case bson.TypeMaxKey:
		return maxKeyBound(), nil
	case bson.TypeString:
		return stringBound(v.StringValue()), nil
	}
	return bound{}, fmt.Errorf("bound %s: want {_id: MinKey, MaxKey or a string}", d)
}

// keyRange is a range of _id values, min included, max excluded.
type keyRange struct{ min, max bound }

func (r keyRange) String() string { return "[" + r.min.String() + ", " + r.max.String() + ")" }

// result is the range as the bootstrap result (results.Bootstrap) gives it.
func (r keyRange) result() *results.KeyRange {
	return &results.KeyRange{Min: r.min.resultString(), Max: r.max.resultString()}
}

// plannedRanges are the ranges the split points cut the key space into:
// range i belongs to shard i.
func plannedRanges(points []string) []keyRange {
	ranges := make([]keyRange, 0, len(points)+1)
	lo := minKeyBound()
	for _, p := range points {
		ranges = append(ranges, keyRange{min: lo, max: stringBound(p)})
		lo = stringBound(p)
	}
	return append(ranges, keyRange{min: lo, max: maxKeyBound()})
}

// chunk is one entry of config.chunks.
type chunk struct {
	keyRange
	shard string
}

// chunkLayout is a collection's chunks in key order.
type chunkLayout []chunk

// hasBoundary reports whether a chunk starts at b.
func (l chunkLayout) hasBoundary(b bound) bool {
	for _, c := range l {
		if c.min == b {
			return true
		}
	}
	return false
}

// owner returns the shard of the chunk that is exactly r, if there is one.
func (l chunkLayout) owner(r keyRange) (string, bool) {
	for _, c := range l {
		if c.min == r.min && c.max == r.max {
			return c.shard, true
		}
	}
	return "", false
}

// foreignBoundaries lists chunk boundaries that are none of the planned
// split points: left by someone else, they would make the planned ranges
// span several chunks, which neither moveRange nor moveChunk accepts.
func (l chunkLayout) foreignBoundaries(points []string) []string {
	planned := map[bound]bool{}
	for _, p := range points {
		planned[stringBound(p)] = true
	}
	var out []string
	for _, c := range l {
		if c.min.kind != boundMinKey && !planned[c.min] {
			out = append(out, c.min.String())
		}
	}
	return out
}

func (l chunkLayout) String() string {
	parts := make([]string, len(l))
	for i, c := range l {
		parts[i] = c.String() + " on " + c.shard
	}
	return strings.Join(parts, ", ")
}

// readChunks reads the collection's chunks once (callers retry).
func (r *runner) readChunks(ctx context.Context, mongos string, uuid bson.RawValue) (chunkLayout, error) {
	docs, err := r.cursorAll(ctx, r.endpoint(mongos), configDB, findChunksCommand(uuid))
	if err != nil {
		return nil, err
	}
	layout := make(chunkLayout, 0, len(docs))
	for _, d := range docs {
		var c chunk
		if c.min, err = parseBound(d.Lookup("min")); err != nil {
			return nil, fmt.Errorf("config.chunks entry %s: %w", d, err)
		}
		if c.max, err = parseBound(d.Lookup("max")); err != nil {
			return nil, fmt.Errorf("config.chunks entry %s: %w", d, err)
		}
		c.shard, _ = d.Lookup("shard").StringValueOK()
		layout = append(layout, c)
	}
	return layout, nil
}

// presplit cuts the collection at the topology's split points and moves
// range i to shard i, then checks that config.chunks shows exactly that.
// It returns each shard's range.
func (r *runner) presplit(ctx context.Context, topo Topology, uuid bson.RawValue) (map[string]keyRange, error) {
	mongos, ns := topo.Mongos, topo.Namespace
	ranges := plannedRanges(topo.SplitPoints)
	var layout chunkLayout
	read := func() error {
		return r.retry(ctx, "read the chunks of "+ns, func(ctx context.Context) error {
			var err error
			layout, err = r.readChunks(ctx, mongos, uuid)
			return err
		})
	}
	if err := read(); err != nil {
		return nil, err
	}
	if foreign := layout.foreignBoundaries(topo.SplitPoints); len(foreign) > 0 {
		return nil, fmt.Errorf("%s already has chunks starting at %s, which are not this run's split points: drop the collection or use a new run",
			ns, strings.Join(foreign, ", "))
	}

	changed := false
	for _, p := range topo.SplitPoints {
		if layout.hasBoundary(stringBound(p)) {
			continue
		}
		if err := r.split(ctx, mongos, ns, uuid, stringBound(p)); err != nil {
			return nil, err
		}
		changed = true
	}
	if changed {
		if err := read(); err != nil {
			return nil, err
		}
	}

	changed = false
	for i, rg := range ranges {
		owner, ok := layout.owner(rg)
		if !ok {
			return nil, fmt.Errorf("%s has no chunk %s after the splits (chunks: %s)", ns, rg, layout)
		}
		want := topo.Shards[i].Name
		if owner == want {
			r.log.Info("range already on its shard", "namespace", ns, "range", rg.String(), "shard", want)
			continue
		}
		if err := r.move(ctx, mongos, ns, uuid, rg, want); err != nil {
			return nil, err
		}
		changed = true
	}
	if changed {
		if err := read(); err != nil {
			return nil, err
		}
	}

	// The outcome, read back: one chunk per shard, range i on shard i.
	owned := map[string]keyRange{}
	ok := len(layout) == len(ranges)
	for i, rg := range ranges {
		owner, found := layout.owner(rg)
		ok = ok && found && owner == topo.Shards[i].Name
		owned[topo.Shards[i].Name] = rg
	}
	if !ok {
		return nil, fmt.Errorf("after the pre-split %s has chunks %s, want %s", ns, layout, describePlan(ranges, topo.Shards))
	}
	r.log.Info("collection pre-split", "namespace", ns, "splitPoints", topo.SplitPoints, "chunks", layout.String())
	return owned, nil
}

func describePlan(ranges []keyRange, shards []ReplicaSet) string {
	parts := make([]string, len(ranges))
	for i, rg := range ranges {
		parts[i] = rg.String() + " on " + shards[i].Name
	}
	return strings.Join(parts, ", ")
}

// split makes a chunk start at p. After a failure the chunks tell whether
// the split happened nonetheless (a lost reply, or a split repeated after
// one): then it is done.
func (r *runner) split(ctx context.Context, mongos, ns string, uuid bson.RawValue, p bound) error {
	return r.retry(ctx, fmt.Sprintf("split %s at %s", ns, p), func(ctx context.Context) error {
		_, err := r.runAdmin(ctx, mongos, splitCommand(ns, p))
		if err == nil {
			r.log.Info("chunk split", "namespace", ns, "at", p.String())
			return nil
		}
		if layout, rerr := r.readChunks(ctx, mongos, uuid); rerr == nil && layout.hasBoundary(p) {
			r.log.Info("chunk already split", "namespace", ns, "at", p.String())
			return nil
		}
		return migrationError(err)
	})
}

// move moves the chunk that is exactly rg to shard. Servers before 6.0
// answer moveRange with 59 CommandNotFound: moveChunk then, for this and
// every later move of the call. After a failure the chunks tell whether the
// range is on the shard nonetheless.
func (r *runner) move(ctx context.Context, mongos, ns string, uuid bson.RawValue, rg keyRange, shard string) error {
	return r.retry(ctx, fmt.Sprintf("move %s %s to %s", ns, rg, shard), func(ctx context.Context) error {
		err := r.sendMove(ctx, mongos, ns, rg, shard)
		if err == nil {
			r.log.Info("range moved", "namespace", ns, "range", rg.String(), "shard", shard)
			return nil
		}
		if layout, rerr := r.readChunks(ctx, mongos, uuid); rerr == nil {
			if owner, ok := layout.owner(rg); ok && owner == shard {
				r.log.Info("range already on its shard", "namespace", ns, "range", rg.String(), "shard", shard)
				return nil
			}
		}
		return migrationError(err)
	})
}

func (r *runner) sendMove(ctx context.Context, mongos, ns string, rg keyRange, shard string) error {
	if !r.legacyMoves {
		_, err := r.runAdmin(ctx, mongos, moveRangeCommand(ns, rg, shard))
		if !hasCode(err, codeCommandNotFound) {
			return err
		}
		r.log.Info("moveRange unknown to the server (before 6.0): using moveChunk")
		r.legacyMoves = true
	}
	_, err := r.runAdmin(ctx, mongos, moveChunkCommand(ns, rg, shard))
	return err
}

// migrationError marks the errors of a split or a migration that pass by
// themselves: another migration or split of the collection still holding
// its lock.
func migrationError(err error) error {
	if hasCode(err, codeConflictingOperationInProgress) || hasCode(err, codeLockBusy) {
		return passingError{err: err}
	}
	return err
}
