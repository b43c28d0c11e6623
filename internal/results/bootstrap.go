package results

import (
	"encoding/json"
	"fmt"
)

// BootstrapFormatVersion is the version of the Bootstrap encoding.
// Version 2 added splitPoints and each shard's range (a ranged shard key);
// version 3 the server environment. DecodeBootstrap still reads versions 1
// and 2, which lack them. Fields added since (the environment's storage
// engine and version, the members of a replica set, the external target)
// are optional within version 3: an older result lacks them, an older
// decoder ignores them. External stays within version 3 too: only a run of
// mode External produces it, and a controller that predates External
// never starts such a run, so no decoder that ignores it ever reads one.
const BootstrapFormatVersion = 3

// oldestBootstrapFormatVersion is the oldest version DecodeBootstrap reads.
const oldestBootstrapFormatVersion = 1

// Bounds of a range that are not key values: MongoDB's MinKey and MaxKey,
// below and above every key.
const (
	MinKeyBound = "$minKey"
	MaxKeyBound = "$maxKey"
)

// Bootstrap is what the bootstrap Job (loader bootstrap) found after
// making the topology ready for loaders.
type Bootstrap struct {
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
	Shards []ShardChunks `json:"shards,omitempty"`
	// SplitPoints are the _id values at which a collection with a ranged
	// shard key was split before loading, in increasing order: the
	// quantiles of the keys the Load phase inserts, one range per shard.
	SplitPoints []string `json:"splitPoints,omitempty"`
	// Server describes the MongoDB build and each process's options and
	// startup warnings, as far as the servers answered (best effort).
	Server *ServerEnvironment `json:"server,omitempty"`
	// Members are the members of a replica-set topology's set, in member
	// order, with the state the bootstrap saw last (one PRIMARY, the
	// others SECONDARY).
	Members []MemberState `json:"members,omitempty"`
	// External is what the bootstrap found on a cluster mongobench did not
	// deploy (mode External); nil for a topology it deployed.
	External *ExternalTarget `json:"external,omitempty"`
}

// What `loader bootstrap --mode External` detected behind the connection
// string (ExternalTarget.Detected).
const (
	DetectedStandalone = "standalone"
	DetectedReplicaSet = "replicaSet"
	DetectedSharded    = "sharded"
)

// ExternalTarget is a cluster mongobench did not deploy, as the bootstrap
// saw it through the user's connection string. It never holds the
// connection string, nor anything of its user information or options:
// only host names, which the cluster itself reports.
type ExternalTarget struct {
	// Detected is DetectedStandalone, DetectedReplicaSet or
	// DetectedSharded: hello's msg "isdbgrid" is a mongos, a setName a
	// replica set member, neither a standalone.
	Detected string `json:"detected"`
	// Hosts are the connection string's hosts (host:port,...), or the SRV
	// name of a mongodb+srv:// one.
	Hosts string `json:"hosts"`
	// ReplicaSet is hello's setName (DetectedReplicaSet).
	ReplicaSet string `json:"replicaSet,omitempty"`
	// Members are hello's hosts, the set's data-bearing members that can
	// become primary (DetectedReplicaSet), and Primary its primary.
	Members []string `json:"members,omitempty"`
	Primary string   `json:"primary,omitempty"`
	// Database is the run's database, the only one the run writes to.
	Database string `json:"database"`
	// Owned is true when the database holds this run's owner mark
	// (contract.OwnerCollection): the bootstrap found it empty and wrote
	// the mark, or found its own mark on a rerun. Only an owned database
	// is ever dropped.
	Owned bool `json:"owned"`
	// ExistingCollections are the collections the database already held
	// (allowExistingData), the owner mark excluded; at most
	// MaxExistingCollections.
	ExistingCollections []string `json:"existingCollections,omitempty"`
	// Notes say what the bootstrap deliberately left alone on the user's
	// cluster, e.g. the balancer.
	Notes []string `json:"notes,omitempty"`
}

// MaxExistingCollections bounds ExternalTarget.ExistingCollections.
const MaxExistingCollections = 20

// MemberState is one replica-set member as replSetGetStatus reported it.
type MemberState struct {
	// ReplicaSet is the set's name.
	ReplicaSet string `json:"replicaSet"`
	// Host is the member's host:port, as its set's config names it.
	Host string `json:"host"`
	// State is replSetGetStatus's stateStr (PRIMARY, SECONDARY, ...).
	State string `json:"state"`
}

// Bounds of the server environment in a bootstrap result, so that it stays
// small whatever the servers say.
const (
	MaxStartupWarnings     = 20
	MaxStartupWarningBytes = 512
	MaxOptionsBytes        = 2048
)

// ServerEnvironment is what the MongoDB servers say about themselves.
type ServerEnvironment struct {
	// Version, GitVersion, Allocator and OpenSSL come from buildInfo of the
	// entry point (version, gitVersion, allocator, openssl.running). Version
	// is the release, e.g. "8.0.16"; GitVersion is the commit it was built
	// from (src/mongo/util/version.cpp appendBuildInfo, mongodb/mongo).
	// Results from before Version was recorded lack it.
	Version    string `json:"version,omitempty"`
	GitVersion string `json:"gitVersion,omitempty"`
	Allocator  string `json:"allocator,omitempty"`
	OpenSSL    string `json:"openssl,omitempty"`
	// FeatureCompatibilityVersion of a data-bearing mongod.
	FeatureCompatibilityVersion string `json:"featureCompatibilityVersion,omitempty"`
	// StorageEngine is serverStatus.storageEngine.name of a data-bearing
	// mongod (wiredTiger, inMemory).
	StorageEngine string `json:"storageEngine,omitempty"`
	// Processes are the MongoDB processes, in topology order.
	Processes []ProcessEnvironment `json:"processes,omitempty"`
}

// ProcessEnvironment is one process's options and startup warnings.
type ProcessEnvironment struct {
	Host string `json:"host"`
	// Options is getCmdLineOpts' parsed document as relaxed extended JSON
	// (at most MaxOptionsBytes).
	Options string `json:"options,omitempty"`
	// StartupWarnings are getLog startupWarnings' lines (at most
	// MaxStartupWarnings of MaxStartupWarningBytes each).
	StartupWarnings []string `json:"startupWarnings,omitempty"`
	// Unavailable says what could not be read, and why.
	Unavailable []string `json:"unavailable,omitempty"`
}

// ShardChunks is one shard of a sharded topology.
type ShardChunks struct {
	Name   string `json:"name"`
	Host   string `json:"host"`
	Chunks int    `json:"chunks"`
	// Range is the _id range the shard owns after a ranged pre-split (one
	// chunk per shard); nil otherwise.
	Range *KeyRange `json:"range,omitempty"`
}

// KeyRange is a range of _id values, Min included, Max excluded; either may
// be MinKeyBound or MaxKeyBound.
type KeyRange struct {
	Min string `json:"min"`
	Max string `json:"max"`
}

// EncodeBootstrap serialises a bootstrap result, as the bootstrap Job writes it to
// its result ConfigMap (data key contract.BootstrapConfigMapKey).
func EncodeBootstrap(r *Bootstrap) ([]byte, error) {
	r.Version = BootstrapFormatVersion
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode bootstrap report: %w", err)
	}
	return b, nil
}

// DecodeBootstrap parses and checks a bootstrap result.
func DecodeBootstrap(b []byte) (*Bootstrap, error) {
	var r Bootstrap
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parse bootstrap report: %w", err)
	}
	if r.Version < oldestBootstrapFormatVersion || r.Version > BootstrapFormatVersion {
		return nil, fmt.Errorf("bootstrap report version %d, want %d to %d", r.Version, oldestBootstrapFormatVersion, BootstrapFormatVersion)
	}
	if r.ServerVersion == "" {
		return nil, fmt.Errorf("bootstrap report names no server version")
	}
	if r.Sharded && len(r.Shards) == 0 {
		return nil, fmt.Errorf("bootstrap report of a sharded collection lists no shards")
	}
	for i, p := range r.SplitPoints {
		if i > 0 && p <= r.SplitPoints[i-1] {
			return nil, fmt.Errorf("bootstrap report: split points %q and %q are not in increasing order", r.SplitPoints[i-1], p)
		}
	}
	if r.External != nil {
		switch r.External.Detected {
		case DetectedStandalone, DetectedReplicaSet, DetectedSharded:
		default:
			return nil, fmt.Errorf("bootstrap report: external target detected as %q, want %s, %s or %s",
				r.External.Detected, DetectedStandalone, DetectedReplicaSet, DetectedSharded)
		}
	}
	if len(r.SplitPoints) > 0 && !r.Sharded {
		return nil, fmt.Errorf("bootstrap report has split points for a collection that is not sharded")
	}
	return &r, nil
}
