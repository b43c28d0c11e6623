package telemetry

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func sizes(count, size, storage, index int64, indexes map[string]int64) CollectionSizes {
	return CollectionSizes{Count: &count, Size: &size, StorageSize: &storage, TotalIndexSize: &index, IndexSizes: indexes}
}

var (
	shard0Sizes = sizes(500123, 585000000, 301182976, 18206720, map[string]int64{"_id_": 12345344, "_id_hashed": 5861376})
	shard1Sizes = sizes(499877, 584000000, 300134400, 18100224, map[string]int64{"_id_": 12288000, "_id_hashed": 5812224})
	totalSizes  = sizes(1000000, 1169000000, 601317376, 36306944, map[string]int64{"_id_": 24633344, "_id_hashed": 11673600})
)

func TestParseCollStatsStage(t *testing.T) {
	for _, tt := range []struct {
		name string
		docs []bson.Raw
		want CollectionStats
	}{{
		name: "through mongos: one document per shard",
		docs: readDocs(t, "collstats-sharded.json"),
		want: CollectionStats{
			Source: SourceAggregate, CollectionSizes: totalSizes,
			Shards: []ShardSizes{{Shard: "shard0", CollectionSizes: shard0Sizes}, {Shard: "shard1", CollectionSizes: shard1Sizes}},
		},
	}, {
		name: "standalone: one document without a shard",
		docs: readDocs(t, "collstats-standalone.json"),
		want: CollectionStats{
			Source:          SourceAggregate,
			CollectionSizes: sizes(100000, 117000000, 61440000, 2453504, map[string]int64{"_id_": 2453504}),
		},
	}, {
		// A shard that lacks a statistic makes the total unknown, not
		// smaller; the others still add up.
		name: "a shard without totalIndexSize and indexSizes",
		docs: func() []bson.Raw {
			docs := readDocs(t, "collstats-sharded.json")
			var d bson.D
			if err := bson.Unmarshal(docs[1], &d); err != nil {
				t.Fatal(err)
			}
			ss := d[4].Value.(bson.D)
			var kept bson.D
			for _, e := range ss {
				if e.Key != "totalIndexSize" && e.Key != "indexSizes" {
					kept = append(kept, e)
				}
			}
			d[4].Value = kept
			raw, err := bson.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			return []bson.Raw{docs[0], raw}
		}(),
		want: CollectionStats{
			Source: SourceAggregate,
			CollectionSizes: CollectionSizes{
				Count: totalSizes.Count, Size: totalSizes.Size, StorageSize: totalSizes.StorageSize,
			},
			Shards: []ShardSizes{
				{Shard: "shard0", CollectionSizes: shard0Sizes},
				{Shard: "shard1", CollectionSizes: CollectionSizes{Count: shard1Sizes.Count, Size: shard1Sizes.Size, StorageSize: shard1Sizes.StorageSize}},
			},
			Absent: []string{"storageStats.totalIndexSize (shard1)", "storageStats.indexSizes (shard1)"},
		},
	}, {
		name: "no storageStats at all",
		docs: []bson.Raw{mustMarshal(t, bson.D{{Key: "ns", Value: "a.b"}})},
		want: CollectionStats{
			Source: SourceAggregate,
			Absent: []string{"storageStats.count", "storageStats.size", "storageStats.storageSize", "storageStats.totalIndexSize", "storageStats.indexSizes"},
		},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCollStatsStage(tt.docs)
			if err != nil {
				t.Fatal(err)
			}
			equalJSON(t, "stats", got, tt.want)
		})
	}
}

func TestParseCollStatsStageErrors(t *testing.T) {
	if _, err := parseCollStatsStage(nil); err == nil || !strings.Contains(err.Error(), "no statistics") {
		t.Errorf("no documents: %v", err)
	}
	docs := readDocs(t, "collstats-standalone.json")
	if _, err := parseCollStatsStage([]bson.Raw{docs[0], docs[0]}); err == nil || !strings.Contains(err.Error(), "not all of them naming their shard") {
		t.Errorf("two documents without a shard: %v", err)
	}
}

func TestParseCollStatsCommand(t *testing.T) {
	for _, tt := range []struct {
		name string
		file string
		want CollectionStats
	}{{
		name: "through mongos: totals and shards",
		file: "collstats-command-mongos.json",
		want: CollectionStats{
			Source: SourceCommand, CollectionSizes: totalSizes,
			Shards: []ShardSizes{{Shard: "shard0", CollectionSizes: shard0Sizes}, {Shard: "shard1", CollectionSizes: shard1Sizes}},
		},
	}, {
		// Recorded from mongo-java-server: no totalIndexSize, and its
		// index sizes under a name MongoDB does not use ("indexSize").
		name: "mongo-java-server",
		file: "collstats-command-wireserver.json",
		want: CollectionStats{
			Source:          SourceCommand,
			CollectionSizes: CollectionSizes{Count: ptr[int64](1), Size: ptr[int64](29), StorageSize: ptr[int64](0)},
			Absent:          []string{"totalIndexSize", "indexSizes"},
		},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			equalJSON(t, "stats", parseCollStatsCommand(readDoc(t, tt.file)), tt.want)
		})
	}
}

func mustMarshal(t *testing.T, d bson.D) bson.Raw {
	t.Helper()
	raw, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
