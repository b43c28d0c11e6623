package mongoadmin

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// chunksPerShard counts the collection's chunks on each shard.
func (r *runner) chunksPerShard(ctx context.Context, mongos string, uuid bson.RawValue) (map[string]int, error) {
	counts := map[string]int{}
	err := r.retry(ctx, "count chunks", func(ctx context.Context) error {
		docs, err := r.cursorAll(ctx, r.endpoint(mongos), configDB, chunkCountCommand(uuid))
		if err != nil {
			return err
		}
		clear(counts)
		for _, d := range docs {
			var g struct {
				Shard  string `bson:"_id"`
				Chunks int    `bson:"chunks"`
			}
			if err := bson.Unmarshal(d, &g); err != nil {
				return fmt.Errorf("chunk count: decode %s: %w", d, err)
			}
			counts[g.Shard] += g.Chunks
		}
		return nil
	})
	return counts, err
}

// shardChunks lists every shard, with 0 for a shard without chunks: the
// topology's shards first in their order, then any other shard the cluster
// lists, then (should config.chunks name one) shards known only by chunks.
// ranges are the shards' ranges after a ranged pre-split (else nil).
func shardChunks(topo []ReplicaSet, listed []shardInfo, chunks map[string]int, ranges map[string]keyRange) []results.ShardChunks {
	var out []results.ShardChunks
	seen := map[string]bool{}
	hostOf := map[string]string{}
	for _, s := range listed {
		hostOf[s.ID] = s.Host
	}
	add := func(name, host string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if h, ok := hostOf[name]; ok {
			host = h
		}
		sr := results.ShardChunks{Name: name, Host: host, Chunks: chunks[name]}
		if rg, ok := ranges[name]; ok {
			sr.Range = rg.result()
		}
		out = append(out, sr)
	}
	for _, rs := range topo {
		add(rs.Name, shardConnString(rs))
	}
	for _, s := range listed {
		add(s.ID, s.Host)
	}
	var rest []string
	for name := range chunks {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		add(name, "")
	}
	return out
}
