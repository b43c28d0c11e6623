package mongoadmin

import (
	"context"
	"fmt"

	"github.com/mongobench/mongobench/internal/results"
)

// Bootstrap makes the topology ready for loaders and returns what it found.
// It is idempotent: run against a topology that is partly or fully
// bootstrapped, it recognises every step already done and sends no command
// that changes anything for it.
//
// Standalone: wait for the mongod to be writable, read its version, create
// the collection. Sharded: initiate the config server and every shard as a
// one-member replica set and wait for their primaries, wait for mongos, add
// the shards, stop the balancer, enable sharding on the database (5.0
// needs it), shard the collection, pre-split a ranged one (one range per
// shard, see presplit.go), and report the chunks per shard. ReplicaSet:
// initiate the set with all its members, wait for one PRIMARY and every
// other member SECONDARY, create the collection on the primary
// (replicaset.go). Then, in every mode, topo.Users that do not exist yet
// are created (users.go).
func Bootstrap(ctx context.Context, topo Topology, opts Options) (*results.Bootstrap, error) {
	if err := topo.Validate(); err != nil {
		return nil, fmt.Errorf("invalid topology: %w", err)
	}
	topo = topo.withDefaults()
	r, ctx, cancel := newRunner(ctx, opts)
	defer cancel()
	defer r.close()
	switch topo.Mode {
	case ModeStandalone:
		return r.bootstrapStandalone(ctx, topo)
	case ModeReplicaSet:
		return r.bootstrapReplicaSet(ctx, topo)
	}
	return r.bootstrapSharded(ctx, topo)
}

func (r *runner) bootstrapStandalone(ctx context.Context, topo Topology) (*results.Bootstrap, error) {
	uri := DirectURI(topo.Standalone)
	r.log.Info("bootstrapping standalone", "host", topo.Standalone, "namespace", topo.Namespace)
	err := r.retry(ctx, "wait for mongod "+topo.Standalone, func(ctx context.Context) error {
		h, err := r.hello(ctx, uri)
		if err != nil {
			return err
		}
		if h.IsReplicaSet {
			// It would never become writable without an initiate, which
			// standalone mode does not send: fail now, not at the deadline.
			return fmt.Errorf("%s was started with --replSet and is not initiated: a standalone must run without --replSet", topo.Standalone)
		}
		if !h.writable() {
			return notYet("%s is not writable yet", topo.Standalone)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.log.Info("mongod ready", "host", topo.Standalone)
	bi, err := r.buildInfo(ctx, uri)
	if err != nil {
		return nil, err
	}
	version := bi.version
	// The collection is created so that the result, and the validator step
	// that may follow, refer to something that exists.
	if err := r.ensureCollection(ctx, uri, topo.Namespace); err != nil {
		return nil, err
	}
	if err := r.ensureUsers(ctx, "standalone", topo.Standalone, topo.Users.entryUsers()); err != nil {
		return nil, err
	}
	r.log.Info("bootstrap done", "serverVersion", version, "namespace", topo.Namespace)
	return &results.Bootstrap{ServerVersion: version, Namespace: topo.Namespace,
		Server: r.serverEnvironment(ctx, bi, topo.Standalone, []string{topo.Standalone})}, nil
}

func (r *runner) bootstrapSharded(ctx context.Context, topo Topology) (*results.Bootstrap, error) {
	r.log.Info("bootstrapping sharded cluster", "configServer", topo.ConfigServer.Name,
		"shards", len(topo.Shards), "mongos", topo.Mongos, "namespace", topo.Namespace, "shardKey", topo.ShardKey)
	// The config server first: mongos waits for its primary.
	var members []results.MemberState
	cfgMembers, err := r.initiateReplicaSet(ctx, topo.ConfigServer, true)
	if err != nil {
		return nil, err
	}
	members = append(members, cfgMembers...)
	for _, rs := range topo.Shards {
		shardMembers, err := r.initiateReplicaSet(ctx, rs, false)
		if err != nil {
			return nil, err
		}
		members = append(members, shardMembers...)
	}
	listed, err := r.waitMongos(ctx, topo.Mongos)
	if err != nil {
		return nil, err
	}
	for _, rs := range topo.Shards {
		if err := r.addShard(ctx, topo.Mongos, rs, listed); err != nil {
			return nil, err
		}
	}
	mode, err := r.stopBalancer(ctx, topo.Mongos)
	if err != nil {
		return nil, err
	}
	coll, err := r.shardCollection(ctx, topo.Mongos, topo.Namespace, topo.ShardKey.Document())
	if err != nil {
		return nil, err
	}
	if coll.UUID.Type == 0 {
		return nil, fmt.Errorf("config.collections has no uuid for %s (a server before 5.0?): cannot count its chunks", topo.Namespace)
	}
	var ranges map[string]keyRange
	if topo.ShardKey == ShardKeyRanged {
		if ranges, err = r.presplit(ctx, topo, coll.UUID); err != nil {
			return nil, err
		}
	}
	if err := r.ensureClusterUsers(ctx, topo); err != nil {
		return nil, err
	}

	// The result reads the cluster back rather than echoing the topology.
	bi, err := r.buildInfo(ctx, DirectURI(topo.Mongos))
	if err != nil {
		return nil, err
	}
	version := bi.version
	if err := r.retry(ctx, "list shards", func(ctx context.Context) error {
		listed, err = r.listShards(ctx, topo.Mongos)
		return err
	}); err != nil {
		return nil, err
	}
	chunks, err := r.chunksPerShard(ctx, topo.Mongos, coll.UUID)
	if err != nil {
		return nil, err
	}
	boot := &results.Bootstrap{
		ServerVersion: version,
		Namespace:     topo.Namespace,
		Sharded:       true,
		ShardKey:      keyJSON(coll.Key),
		BalancerMode:  mode,
		Shards:        shardChunks(topo.Shards, listed, chunks, ranges),
		SplitPoints:   topo.SplitPoints,
	}
	hosts := topo.ConfigServer.Members()
	for _, rs := range topo.Shards {
		hosts = append(hosts, rs.Members()...)
	}
	if len(hosts) > len(topo.Shards)+1 {
		// Sets of several members: their members' states, as for a
		// ReplicaSet topology. One-member sets' results stay as they were.
		boot.Members = members
	}
	boot.Server = r.serverEnvironment(ctx, bi, topo.Shards[0].Host, append(hosts, topo.Mongos))
	r.log.Info("bootstrap done", "serverVersion", version, "namespace", topo.Namespace,
		"shardKey", boot.ShardKey, "balancer", mode, "chunks", chunks, "splitPoints", topo.SplitPoints)
	return boot, nil
}
