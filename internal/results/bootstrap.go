package results

import (
	"encoding/json"
	"fmt"
)

// BootstrapConfigMapKey is the data key of a bootstrap Job's report in its
// result ConfigMap (the same transport as loader results).
const BootstrapConfigMapKey = "bootstrap.json"

// BootstrapReport is what the bootstrap Job (loader bootstrap) found after
// making the topology ready for loaders.
type BootstrapReport struct {
	Version int `json:"version"`
	// ServerVersion reported by the entry point (mongos or standalone).
	ServerVersion string `json:"serverVersion"`
	// Namespace is the benchmark collection, db.collection.
	Namespace string `json:"namespace"`
	// Sharded reports whether the collection is sharded.
	Sharded bool `json:"sharded"`
	// ShardKey is the collection's key document as JSON, e.g. {"_id":"hashed"}.
	ShardKey string `json:"shardKey,omitempty"`
	// BalancerMode is the balancer's mode after bootstrap ("off").
	BalancerMode string `json:"balancerMode,omitempty"`
	// Shards lists each shard with its chunks of the collection.
	Shards []ShardReport `json:"shards,omitempty"`
}

// ShardReport is one shard of a sharded topology.
type ShardReport struct {
	Name   string `json:"name"`
	Host   string `json:"host"`
	Chunks int    `json:"chunks"`
}

// EncodeBootstrap serialises a report.
func EncodeBootstrap(r *BootstrapReport) ([]byte, error) {
	r.Version = FormatVersion
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode bootstrap report: %w", err)
	}
	return b, nil
}

// DecodeBootstrap parses and checks a report.
func DecodeBootstrap(b []byte) (*BootstrapReport, error) {
	var r BootstrapReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parse bootstrap report: %w", err)
	}
	if r.Version != FormatVersion {
		return nil, fmt.Errorf("bootstrap report version %d, want %d", r.Version, FormatVersion)
	}
	if r.ServerVersion == "" {
		return nil, fmt.Errorf("bootstrap report names no server version")
	}
	if r.Sharded && len(r.Shards) == 0 {
		return nil, fmt.Errorf("bootstrap report of a sharded collection lists no shards")
	}
	return &r, nil
}
