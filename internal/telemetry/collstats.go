package telemetry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/results"
)

// Sources of collection statistics.
const (
	// SourceAggregate is the $collStats stage with storageStats: one
	// document per shard through mongos, one from a standalone.
	SourceAggregate = "$collStats"
	// SourceCommand is the collStats command (deprecated since MongoDB 6.2),
	// used only when the server does not know the stage.
	SourceCommand = "collStats"
)

// Error codes that mean the server lacks the $collStats stage (or
// aggregation altogether): 40324 unrecognized pipeline stage, 59
// CommandNotFound.
var noCollStatsStage = []int{40324, 59}

// CollectionSizes, ShardSizes and CollectionStats are the result format's
// (internal/results), so that a result can carry them (a Grow phase's
// checkpoints); these names are kept for this package's users.
type (
	// CollectionSizes are a collection's storage statistics, of one shard
	// or in total (results.CollectionSizes).
	CollectionSizes = results.CollectionSizes
	// ShardSizes are one shard's part of a sharded collection.
	ShardSizes = results.ShardSizes
	// CollectionStats are the storage statistics of a collection at one
	// time: totals, and through mongos the split by shard. Source is
	// SourceAggregate or SourceCommand.
	CollectionStats = results.CollectionStats
)

// CollStats reads the storage statistics of db.coll through client (mongos
// for a sharded cluster): the $collStats stage with storageStats, or, from a
// server that does not know the stage, the collStats command.
func CollStats(ctx context.Context, client *mongo.Client, db, coll string) (CollectionStats, error) {
	ns := db + "." + coll
	pipeline := mongo.Pipeline{{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}}}}}
	cur, err := client.Database(db).Collection(coll).Aggregate(ctx, pipeline)
	if err == nil {
		var docs []bson.Raw
		if err := cur.All(ctx, &docs); err != nil {
			return CollectionStats{}, fmt.Errorf("$collStats of %s: %w", ns, err)
		}
		st, err := parseCollStatsStage(docs)
		if err != nil {
			return CollectionStats{}, fmt.Errorf("$collStats of %s: %w", ns, err)
		}
		st.Time, st.Namespace = time.Now(), ns
		return st, nil
	}
	var se mongo.ServerError
	if !errors.As(err, &se) || !slices.ContainsFunc(noCollStatsStage, se.HasErrorCode) {
		return CollectionStats{}, fmt.Errorf("$collStats of %s: %w", ns, err)
	}
	doc, cmdErr := client.Database(db).RunCommand(ctx, bson.D{{Key: "collStats", Value: coll}}).Raw()
	if cmdErr != nil {
		return CollectionStats{}, fmt.Errorf("collStats of %s (the server has no $collStats stage: %w): %w", ns, err, cmdErr)
	}
	st := parseCollStatsCommand(doc)
	st.Time, st.Namespace = time.Now(), ns
	return st, nil
}

// parseCollStatsStage reads the output of $collStats: {storageStats: {}}:
// one document per shard through mongos (with a "shard" field), a single
// one without it from a standalone or replica set.
func parseCollStatsStage(docs []bson.Raw) (CollectionStats, error) {
	if len(docs) == 0 {
		return CollectionStats{}, errors.New("no statistics returned")
	}
	st := CollectionStats{Source: SourceAggregate}
	for _, raw := range docs {
		d := bsoncore.Document(raw)
		name, _ := d.Lookup("shard").StringValueOK()
		sizes, absent := readSizes(subDocument(d, "storageStats"), "storageStats.")
		st.Absent = append(st.Absent, qualify(absent, name)...)
		if name != "" {
			st.Shards = append(st.Shards, ShardSizes{Shard: name, CollectionSizes: sizes})
		} else if len(docs) == 1 {
			st.CollectionSizes = sizes
		} else {
			return CollectionStats{}, fmt.Errorf("%d statistics documents, not all of them naming their shard", len(docs))
		}
	}
	if st.Shards != nil {
		st.CollectionSizes = totals(st.Shards)
	}
	return st, nil
}

// parseCollStatsCommand reads a collStats command reply: the totals at the
// top, and through mongos each shard's part under "shards".
func parseCollStatsCommand(raw bson.Raw) CollectionStats {
	d := bsoncore.Document(raw)
	st := CollectionStats{Source: SourceCommand}
	st.CollectionSizes, st.Absent = readSizes(d, "")
	if shards := subDocument(d, "shards"); shards != nil {
		elems, _ := shards.Elements()
		for _, e := range elems {
			sizes, absent := readSizes(subDocument(shards, e.Key()), "")
			st.Shards = append(st.Shards, ShardSizes{Shard: e.Key(), CollectionSizes: sizes})
			st.Absent = append(st.Absent, qualify(absent, e.Key())...)
		}
	}
	return st
}

// readSizes reads count, size, storageSize, totalIndexSize and indexSizes
// from a storageStats (or collStats) document and names those absent, with
// prefix.
func readSizes(d bsoncore.Document, prefix string) (CollectionSizes, []string) {
	var s CollectionSizes
	var absent []string
	for _, f := range []struct {
		key string
		dst **int64
	}{{"count", &s.Count}, {"size", &s.Size}, {"storageSize", &s.StorageSize}, {"totalIndexSize", &s.TotalIndexSize}} {
		if v, ok := intValue(d, f.key).Get(); ok {
			*f.dst = &v
		} else {
			absent = append(absent, prefix+f.key)
		}
	}
	if idx := subDocument(d, "indexSizes"); idx != nil {
		elems, _ := idx.Elements()
		s.IndexSizes = make(map[string]int64, len(elems))
		for _, e := range elems {
			if v, ok := intValue(idx, e.Key()).Get(); ok {
				s.IndexSizes[e.Key()] = v
			}
		}
	} else {
		absent = append(absent, prefix+"indexSizes")
	}
	return s, absent
}

// totals adds up the shards' sizes; a total is nil when any shard lacks it.
func totals(shards []ShardSizes) CollectionSizes {
	var t CollectionSizes
	fields := func(s *CollectionSizes) []**int64 {
		return []**int64{&s.Count, &s.Size, &s.StorageSize, &s.TotalIndexSize}
	}
	for i, dst := range fields(&t) {
		var sum int64
		complete := true
		for j := range shards {
			v := *fields(&shards[j].CollectionSizes)[i]
			if v == nil {
				complete = false
				break
			}
			sum += *v
		}
		if complete {
			*dst = &sum
		}
	}
	for _, s := range shards {
		if s.IndexSizes == nil {
			t.IndexSizes = nil
			break
		}
		if t.IndexSizes == nil {
			t.IndexSizes = map[string]int64{}
		}
		for name, v := range s.IndexSizes {
			t.IndexSizes[name] += v
		}
	}
	return t
}

// qualify appends " (shard)" to each name when shard is not empty.
func qualify(names []string, shard string) []string {
	if shard == "" {
		return names
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + " (" + shard + ")"
	}
	return out
}
