package mongoadmin

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Mode is the shape of the deployment. Its values are spelled as the
// BenchmarkRun API's TopologyMode values are, but nothing converts one into
// the other: the API never reaches this package. The controller writes the
// mode on the bootstrap Job's command line (--mode, the API's value in lower
// case: contract.FlagValue), and the loader maps that flag onto these
// constants, ignoring case (internal/loader, admin.go).
type Mode string

// Modes.
const (
	// ModeStandalone is one mongod: no replica set, no sharding.
	ModeStandalone Mode = "Standalone"
	// ModeSharded is a config server replica set, N one-member shard replica
	// sets and one mongos.
	ModeSharded Mode = "Sharded"
	// ModeReplicaSet is one replica set of one or more members, the entry
	// point itself (replicaset.go).
	ModeReplicaSet Mode = "ReplicaSet"
)

// ShardKey selects the benchmark collection's shard key, always on _id. Like
// Mode, its values are spelled as the BenchmarkRun API's ShardKey values
// are, and reach this package through the loader's --shard-key flag, in
// lower case.
type ShardKey string

// Shard keys.
const (
	// ShardKeyHashed is {_id: "hashed"}: YCSB's keys spread evenly.
	ShardKeyHashed ShardKey = "Hashed"
	// ShardKeyRanged is {_id: 1}.
	ShardKeyRanged ShardKey = "Ranged"
)

// DefaultNamespace is the collection YCSB's MongoDB binding uses.
const DefaultNamespace = "ycsb.usertable"

// Document returns the key document sent to shardCollection.
func (k ShardKey) Document() bson.D {
	if k == ShardKeyRanged {
		return bson.D{{Key: idField, Value: int32(1)}}
	}
	return bson.D{{Key: idField, Value: hashedKey}}
}

// ReplicaSet is a replica set: its name (--replSet) and its members'
// host:port, each the name the member knows itself by (a stable per-pod DNS
// name, and the port given to --port). Host is member _id 0, the one
// replSetInitiate is sent to; Others are members 1, 2, ... in _id order,
// none for the one-member sets of a sharded cluster.
type ReplicaSet struct {
	Name   string
	Host   string
	Others []string
}

// Members are the hosts of every member, in _id order.
func (rs ReplicaSet) Members() []string {
	return append([]string{rs.Host}, rs.Others...)
}

// Topology is what Bootstrap makes ready.
type Topology struct {
	Mode Mode
	// Standalone is the mongod's host:port (ModeStandalone).
	Standalone string
	// ConfigServer, Shards and Mongos describe a sharded cluster
	// (ModeSharded). Shard names are also the names given to addShard.
	ConfigServer ReplicaSet
	Shards       []ReplicaSet
	Mongos       string
	// ReplicaSet is the replica set of ModeReplicaSet.
	ReplicaSet ReplicaSet
	// Namespace is db.collection; empty means DefaultNamespace.
	Namespace string
	// ShardKey of the collection (ModeSharded); empty means ShardKeyHashed.
	ShardKey ShardKey
	// SplitPoints pre-split a collection with ShardKeyRanged: the _id
	// values, in increasing byte order, that cut it into one range per
	// shard; range i, from SplitPoints[i-1] (MinKey for i = 0) up to
	// SplitPoints[i] (MaxKey for the last), goes to Shards[i]. There must
	// be exactly one fewer than shards: a ranged collection left in one
	// chunk would put every record on one shard. The loader computes them
	// from the Load phase's keys (ycsb.KeySet.SplitPoints).
	SplitPoints []string
	// Users are created once the collection exists, for a topology with
	// access control (users.go); the zero value creates none.
	Users Users
}

// withDefaults returns t with the empty optional fields filled in.
func (t Topology) withDefaults() Topology {
	if t.Namespace == "" {
		t.Namespace = DefaultNamespace
	}
	if t.ShardKey == "" {
		t.ShardKey = ShardKeyHashed
	}
	return t
}

// Validate reports a topology that cannot be bootstrapped, before anything
// is sent: such a mistake is in the caller's code, not in the cluster.
func (t Topology) Validate() error {
	t = t.withDefaults()
	if _, _, err := splitNamespace(t.Namespace); err != nil {
		return err
	}
	if err := t.Users.validate(); err != nil {
		return err
	}
	switch t.Mode {
	case ModeStandalone:
		return checkHost("standalone", t.Standalone)
	case ModeReplicaSet:
		return t.ReplicaSet.validate()
	case ModeSharded:
	default:
		return fmt.Errorf("topology mode %q: want %q, %q or %q", t.Mode, ModeStandalone, ModeSharded, ModeReplicaSet)
	}
	if t.ShardKey != ShardKeyHashed && t.ShardKey != ShardKeyRanged {
		return fmt.Errorf("shard key %q: want %q or %q", t.ShardKey, ShardKeyHashed, ShardKeyRanged)
	}
	if len(t.Shards) == 0 {
		return errors.New("a sharded topology needs at least one shard")
	}
	var errs []error
	errs = append(errs, t.validateSplitPoints())
	sets := append([]ReplicaSet{t.ConfigServer}, t.Shards...)
	names := map[string]bool{}
	hosts := []string{t.Mongos}
	for _, rs := range sets {
		if rs.Name == "" || strings.ContainsAny(rs.Name, "/,$ .") {
			errs = append(errs, fmt.Errorf("replica set name %q: want a non-empty name without / , $ . or spaces", rs.Name))
		}
		if names[rs.Name] {
			errs = append(errs, fmt.Errorf("replica set name %q is used twice", rs.Name))
		}
		names[rs.Name] = true
		errs = append(errs, rs.validateMembers())
		hosts = append(hosts, rs.Members()...)
	}
	errs = append(errs, checkHost("mongos", t.Mongos))
	// MongoDB refuses a cluster that mixes localhost and other host names
	// (addShard fails with a message about it), so say it up front.
	local := 0
	for _, h := range hosts {
		if isLocalhost(h) {
			local++
		}
	}
	if local > 0 && local < len(hosts) {
		errs = append(errs, fmt.Errorf("hosts %v mix localhost and other names: MongoDB requires all or none to be localhost", hosts))
	}
	return errors.Join(errs...)
}

// validateSplitPoints checks that a ranged collection gets one range per
// shard, and that nothing else is split.
func (t Topology) validateSplitPoints() error {
	if t.ShardKey != ShardKeyRanged {
		if len(t.SplitPoints) > 0 {
			return fmt.Errorf("split points are for a %s shard key, not %s", ShardKeyRanged, t.ShardKey)
		}
		return nil
	}
	if len(t.SplitPoints) != len(t.Shards)-1 {
		return fmt.Errorf("a %s shard key over %d shards needs %d split points, got %d",
			ShardKeyRanged, len(t.Shards), len(t.Shards)-1, len(t.SplitPoints))
	}
	for i, p := range t.SplitPoints {
		if i > 0 && p <= t.SplitPoints[i-1] {
			return fmt.Errorf("split points %q and %q are not in increasing order", t.SplitPoints[i-1], p)
		}
	}
	return nil
}

func checkHost(what, hostPort string) error {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil || host == "" || port == "" {
		return fmt.Errorf("%s host %q: want host:port", what, hostPort)
	}
	return nil
}

func isLocalhost(hostPort string) bool {
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		host = hostPort
	}
	return host == "localhost" || strings.HasPrefix(host, "127.") || host == "::1"
}

// splitNamespace splits "db.collection" at its first dot (collection names
// may contain dots, database names may not).
func splitNamespace(ns string) (db, coll string, err error) {
	db, coll, ok := strings.Cut(ns, ".")
	if !ok || db == "" || coll == "" {
		return "", "", fmt.Errorf("namespace %q: want db.collection", ns)
	}
	return db, coll, nil
}
