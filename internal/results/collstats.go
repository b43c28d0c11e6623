package results

import "time"

// The storage statistics of a collection, as $collStats (storageStats) or
// the collStats command report them. internal/telemetry reads them (and
// names these types as its own: CollectionStats, CollectionSizes and
// ShardSizes are aliases there); a Grow phase keeps one per checkpoint
// (GrowthCheckpoint.Sizes). They live here, the one result format, so a
// result can carry them.

// CollectionSizes are a collection's storage statistics, of one shard or in
// total. Sizes are in bytes (scale 1). A nil value was not reported.
type CollectionSizes struct {
	// Count is the number of documents.
	Count *int64 `json:"count,omitempty"`
	// Size is the uncompressed size of the documents.
	Size *int64 `json:"size,omitempty"`
	// StorageSize is the space the documents take on disk (compressed).
	StorageSize *int64 `json:"storageSize,omitempty"`
	// TotalIndexSize is the space all indexes take on disk.
	TotalIndexSize *int64 `json:"totalIndexSize,omitempty"`
	// IndexSizes is each index's size, by index name.
	IndexSizes map[string]int64 `json:"indexSizes,omitempty"`
}

// ShardSizes are one shard's part of a sharded collection.
type ShardSizes struct {
	Shard string `json:"shard"`
	CollectionSizes
}

// CollectionStats are the storage statistics of a collection at one time:
// totals, and through mongos the split by shard.
type CollectionStats struct {
	Time time.Time `json:"time"`
	// Namespace is db.collection.
	Namespace string `json:"namespace"`
	// Source is where the statistics came from: "$collStats" (the
	// aggregation stage with storageStats) or "collStats" (the command,
	// from a server without the stage).
	Source string `json:"source"`
	// CollectionSizes are the totals over every shard. A total is nil when
	// any shard did not report its part.
	CollectionSizes
	// Shards is the split by shard (sharded collections through mongos);
	// nil for a standalone or an unsharded collection.
	Shards []ShardSizes `json:"shards,omitempty"`
	// Absent lists the statistics that were not reported, with the shard
	// in parentheses where it applies.
	Absent []string `json:"absent,omitempty"`
}
