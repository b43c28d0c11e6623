package mongoadmin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// A cluster mongobench did not deploy (mode External, issue 25). The
// bootstrap provisions nothing: it connects through the user's connection
// string, detects what it reaches, claims the run's database and creates
// (or shards) the benchmark collection. It never sends a command that
// changes anything outside the run's database: no replSetInitiate, no
// addShard, no createUser, no balancerStop. Every message names the
// cluster by the connection string's hosts only (redactURI): the string
// may hold a password, and its options are the user's.

// ModeExternal is a cluster mongobench did not deploy, the mode of
// BootstrapExternal (contract.ModeExternal on the command line).
const ModeExternal Mode = contract.ModeExternal

// Owner identifies the run a database belongs to: the run's
// "<namespace>/<name>" and its UID, which a run of the same name created
// later does not share.
type Owner struct {
	Run string
	UID string
}

func (o Owner) String() string { return o.Run + "/" + o.UID }

// ParseOwner parses contract.FlagOwner's value, "<namespace>/<name>/<uid>".
func ParseOwner(s string) (Owner, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return Owner{}, fmt.Errorf("owner %q: want <namespace>/<name>/<uid>", s)
	}
	return Owner{Run: parts[0] + "/" + parts[1], UID: parts[2]}, nil
}

// External is what BootstrapExternal makes ready.
type External struct {
	// URI is the user's connection string. It is a secret as a whole:
	// it is dialed, never printed.
	URI string
	// Namespace is db.collection; the run writes to db only.
	Namespace string
	// Owner is the run; its mark goes into an empty database.
	Owner Owner
	// AllowExistingData lets the run use a database that already holds
	// collections (contract.FlagAllowExistingData). Such a database is not
	// marked, so it is never dropped.
	AllowExistingData bool
	// ShardCollection shards the collection when the target is sharded
	// (contract.FlagShardCollection), with ShardKey.
	ShardCollection bool
	ShardKey        ShardKey
	// SplitPoints returns the split points of a ranged collection over n
	// shards, n known only once listShards answered; nil for a hashed key.
	SplitPoints func(ctx context.Context, n int) ([]string, error)
}

// TargetNotEmptyError is the refusal of a database that holds data the run
// did not create (contract.ExitTargetNotEmpty).
type TargetNotEmptyError struct {
	Database    string
	Collections []string
}

// maxNamedCollections bounds how many collections the refusal names.
const maxNamedCollections = 5

func (e *TargetNotEmptyError) Error() string {
	names := e.Collections
	more := ""
	if len(names) > maxNamedCollections {
		more = fmt.Sprintf(" and %d more", len(names)-maxNamedCollections)
		names = names[:maxNamedCollections]
	}
	return fmt.Sprintf("%sdatabase %s already holds %d collection(s) (%s%s) that this run did not create: "+
		"nothing was written; use another database, or allow existing data (--%s) to benchmark on top of it "+
		"(the run will then never drop it)", contract.TargetNotEmptyPrefix, e.Database, len(e.Collections),
		strings.Join(names, ", "), more, contract.FlagAllowExistingData)
}

// ownerMark is the one document of contract.OwnerCollection.
type ownerMark struct {
	ID  string `bson:"_id"`
	Run string `bson:"run"`
	UID string `bson:"uid"`
}

const ownerMarkID = "owner"

// codeDuplicateKey is an insert of an _id that exists: here, another
// bootstrap wrote its mark first.
const codeDuplicateKey = 11000

// BootstrapExternal makes the run's database on the user's cluster ready
// and reports what the cluster is. It is idempotent for its own run: a
// rerun (the bootstrap Job again after a manager restart) finds its own
// mark and goes on.
func BootstrapExternal(ctx context.Context, ext External, opts Options) (*results.Bootstrap, error) {
	if ext.Namespace == "" {
		ext.Namespace = DefaultNamespace
	}
	if ext.ShardKey == "" {
		ext.ShardKey = ShardKeyHashed
	}
	db, _, err := splitNamespace(ext.Namespace)
	if err != nil {
		return nil, fmt.Errorf("invalid target: %w", err)
	}
	if ext.Owner.UID == "" || ext.Owner.Run == "" {
		return nil, errors.New("invalid target: no owner")
	}
	if ext.ShardKey != ShardKeyHashed && ext.ShardKey != ShardKeyRanged {
		return nil, fmt.Errorf("invalid target: shard key %q: want %q or %q", ext.ShardKey, ShardKeyHashed, ShardKeyRanged)
	}
	r, ctx, cancel := newRunner(ctx, opts)
	defer cancel()
	defer r.close()
	// The entry point is named by its hosts in every step and message,
	// and reached through the user's string.
	entry := redactURI(ext.URI)
	r.endpoints[entry] = ext.URI
	r.log.Info("bootstrapping external cluster", "hosts", entry, "namespace", ext.Namespace)

	target := &results.ExternalTarget{Hosts: entry, Database: db}
	h, err := r.detect(ctx, ext.URI, entry)
	if err != nil {
		return nil, err
	}
	// hello (MongoDB manual, hello): msg "isdbgrid" on a mongos; setName
	// and hosts (the members that hold data and may become primary) plus
	// primary on a replica set member; neither on a standalone mongod.
	switch {
	case h.Msg == "isdbgrid":
		target.Detected = results.DetectedSharded
	case h.SetName != "":
		target.Detected = results.DetectedReplicaSet
		target.ReplicaSet, target.Members, target.Primary = h.SetName, h.Hosts, h.Primary
	default:
		target.Detected = results.DetectedStandalone
	}
	bi, err := r.buildInfo(ctx, ext.URI)
	if err != nil {
		return nil, err
	}
	boot := &results.Bootstrap{ServerVersion: bi.version, Namespace: ext.Namespace, External: target}
	var listed []shardInfo
	if target.Detected == results.DetectedSharded {
		if err := r.retry(ctx, "list shards", func(ctx context.Context) error {
			listed, err = r.listShards(ctx, entry)
			return err
		}); err != nil {
			return nil, err
		}
		if len(listed) == 0 {
			return nil, fmt.Errorf("the mongos at %s lists no shards", entry)
		}
	}
	r.log.Info("detected", "hosts", entry, "detected", target.Detected, "serverVersion", bi.version,
		"replicaSet", target.ReplicaSet, "members", target.Members, "shards", len(listed))

	// The database before anything is written to it.
	if target.Owned, target.ExistingCollections, err = r.claimDatabase(ctx, ext.URI, db, ext.Owner, ext.AllowExistingData); err != nil {
		return nil, err
	}

	if target.Detected == results.DetectedSharded {
		if err := r.externalSharded(ctx, ext, entry, listed, boot); err != nil {
			return nil, err
		}
	} else if err := r.ensureCollection(ctx, ext.URI, ext.Namespace); err != nil {
		return nil, err
	}
	dataHost := entry
	if target.Detected == results.DetectedSharded {
		dataHost = "" // a mongos has no featureCompatibilityVersion nor storage engine
	}
	boot.Server = r.serverEnvironment(ctx, bi, dataHost, []string{entry})
	r.log.Info("bootstrap done", "serverVersion", bi.version, "namespace", ext.Namespace, "detected", target.Detected,
		"owned", target.Owned)
	return boot, nil
}

// detect asks the entry point what it is, waiting for it to be writable:
// through a replica set's string the driver sends RunCommand to the
// primary (its default read preference, mongo.Database.RunCommand), which
// an election may leave without one for a while.
func (r *runner) detect(ctx context.Context, uri, entry string) (helloReply, error) {
	var h helloReply
	err := r.retry(ctx, "connect to "+entry, func(ctx context.Context) error {
		var err error
		if h, err = r.hello(ctx, uri); err != nil {
			return err
		}
		if !h.writable() {
			return notYet("%s has no writable primary yet", entry)
		}
		return nil
	})
	return h, err
}

// externalSharded shards the collection (ext.ShardCollection) as a
// deployed sharded bootstrap does, or only creates it, and records the
// shards. The balancer is left as the cluster's owner set it: it is a
// cluster-wide setting of a cluster other workloads may use, and
// balancerStop would outlive the run. Its mode is read (balancerStatus
// changes nothing) and recorded with that note, since a running balancer
// may move chunks during the measurement.
func (r *runner) externalSharded(ctx context.Context, ext External, entry string, listed []shardInfo, boot *results.Bootstrap) error {
	shards := make([]ReplicaSet, len(listed))
	for i, s := range listed {
		shards[i] = shardOfListed(s)
	}
	boot.External.Notes = append(boot.External.Notes,
		"the balancer was left as found: mongobench never changes a cluster-wide setting of a cluster it did not deploy")
	if mode, err := r.balancerMode(ctx, entry); err != nil {
		boot.External.Notes = append(boot.External.Notes, "balancer mode unavailable: "+describe(err))
	} else {
		boot.BalancerMode = mode
	}
	if !ext.ShardCollection {
		boot.Shards = shardChunks(shards, listed, nil, nil)
		return r.ensureCollection(ctx, ext.URI, ext.Namespace)
	}
	topo := Topology{Mode: ModeSharded, Mongos: entry, Shards: shards, Namespace: ext.Namespace, ShardKey: ext.ShardKey}
	if ext.ShardKey == ShardKeyRanged && len(shards) > 1 {
		if ext.SplitPoints == nil {
			return fmt.Errorf("a %s shard key over %d shards needs the Load phase's keys for its split points", ShardKeyRanged, len(shards))
		}
		points, err := ext.SplitPoints(ctx, len(shards))
		if err != nil {
			return fmt.Errorf("split points over %d shards: %w", len(shards), err)
		}
		topo.SplitPoints = points
	}
	if err := topo.validateSplitPoints(); err != nil {
		return err
	}
	coll, err := r.shardCollection(ctx, entry, ext.Namespace, ext.ShardKey.Document())
	if err != nil {
		return err
	}
	if coll.UUID.Type == 0 {
		return fmt.Errorf("config.collections has no uuid for %s (a server before 5.0?): cannot count its chunks", ext.Namespace)
	}
	var ranges map[string]keyRange
	if len(topo.SplitPoints) > 0 {
		// With the balancer possibly running, its AutoMerger may merge two
		// of the ranges while they are still on one shard (presplit.go);
		// presplit checks the layout after its moves and fails rather than
		// report a split that did not happen.
		if ranges, err = r.presplit(ctx, topo, coll.UUID); err != nil {
			return err
		}
	}
	chunks, err := r.chunksPerShard(ctx, entry, coll.UUID)
	if err != nil {
		return err
	}
	boot.Sharded = true
	boot.ShardKey = keyJSON(coll.Key)
	boot.SplitPoints = topo.SplitPoints
	boot.Shards = shardChunks(shards, listed, chunks, ranges)
	return nil
}

// shardOfListed is a shard as listShards reports it: its _id and host,
// "<replica set>/<host:port>,<host:port>,..." (a replica set shard, every
// shard since 3.6), or a bare host:port.
func shardOfListed(s shardInfo) ReplicaSet {
	hosts := s.Host
	if _, after, ok := strings.Cut(hosts, "/"); ok {
		hosts = after
	}
	members := strings.Split(hosts, ",")
	return ReplicaSet{Name: s.ID, Host: members[0], Others: members[1:]}
}

// claimDatabase decides whether the run may use db and marks it as the
// run's when it was empty. listCollections is sent without
// authorizedCollections: with it, a user without the listCollections
// privilege would see only the collections it has privileges on (MongoDB
// manual, listCollections), and a database could look empty that is not.
//
//   - the run's own mark (a rerun): owned, whatever else the run created;
//   - nothing at all: the mark is written first, then owned;
//   - anything else (another run's mark included): TargetNotEmptyError,
//     unless allowExisting, and then never owned.
func (r *runner) claimDatabase(ctx context.Context, uri, db string, owner Owner, allowExisting bool) (owned bool, existing []string, err error) {
	err = r.retry(ctx, "claim database "+db, func(ctx context.Context) error {
		names, err := r.collectionNames(ctx, uri, db)
		if err != nil {
			return err
		}
		var mark *ownerMark
		others := make([]string, 0, len(names))
		for _, n := range names {
			if n == contract.OwnerCollection {
				if mark, err = r.readOwnerMark(ctx, uri, db); err != nil {
					return err
				}
				continue
			}
			others = append(others, n)
		}
		switch {
		case mark != nil && mark.UID == owner.UID:
			r.log.Info("database is this run's", "database", db, "owner", owner.String())
			owned, existing = true, nil
			return nil
		case mark != nil:
			others = append(others, fmt.Sprintf("%s (the mark of run %s, uid %s)", contract.OwnerCollection, mark.Run, mark.UID))
		case slices.Contains(names, contract.OwnerCollection):
			others = append(others, contract.OwnerCollection+" (without a mark)")
		}
		if len(others) > 0 {
			if !allowExisting {
				return &TargetNotEmptyError{Database: db, Collections: others}
			}
			r.log.Warn("database holds data the run did not create; using it as allowed, it will never be dropped",
				"database", db, "collections", others)
			owned, existing = false, clipNames(others)
			return nil
		}
		_, err = r.run(ctx, uri, db, ownerMarkInsert(owner))
		switch {
		case err == nil:
			r.log.Info("database marked as this run's", "database", db, "collection", contract.OwnerCollection, "owner", owner.String())
			owned, existing = true, nil
			return nil
		case hasCode(err, codeDuplicateKey):
			// Another bootstrap, of this run or not, marked it meanwhile:
			// read again.
			return notYet("%s.%s was written meanwhile", db, contract.OwnerCollection)
		}
		return err
	})
	return owned, existing, err
}

// clipNames bounds the existing collections a result records.
func clipNames(names []string) []string {
	if len(names) > results.MaxExistingCollections {
		return append(names[:results.MaxExistingCollections:results.MaxExistingCollections],
			fmt.Sprintf("(%d more)", len(names)-results.MaxExistingCollections))
	}
	return names
}

// collectionNames lists db's collections and views by name. The name is
// read from each entry rather than trusted to a filter: nothing is
// filtered.
func (r *runner) collectionNames(ctx context.Context, uri, db string) ([]string, error) {
	docs, err := r.cursorAll(ctx, uri, db, listCollectionNamesCommand())
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(docs))
	for _, d := range docs {
		n, ok := d.Lookup(nameField).StringValueOK()
		if !ok {
			return nil, fmt.Errorf("listCollections on %s: an entry without a name: %s", redactURI(uri), d)
		}
		names = append(names, n)
	}
	return names, nil
}

// readOwnerMark reads db's owner mark; nil when there is none.
func (r *runner) readOwnerMark(ctx context.Context, uri, db string) (*ownerMark, error) {
	docs, err := r.cursorAll(ctx, uri, db, ownerMarkFind())
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		var m ownerMark
		if err := bson.Unmarshal(d, &m); err != nil {
			return nil, fmt.Errorf("%s.%s: decode %s: %w", db, contract.OwnerCollection, d, err)
		}
		if m.ID == ownerMarkID {
			return &m, nil
		}
	}
	return nil, nil
}

// DropOutcome is what DropOwnedDatabase did.
type DropOutcome struct {
	Database string
	Dropped  bool
	// Reason says why a database was kept.
	Reason string
}

// Line is the outcome as `loader dropdatabase` prints it.
func (o DropOutcome) Line() string {
	if o.Dropped {
		return contract.DropDatabaseDroppedPrefix + o.Database
	}
	return contract.DropDatabaseKeptPrefix + o.Database + ": " + o.Reason
}

// DropOwnedDatabase drops db only if its owner mark is owner's: the
// cleanup of a run of mode External. A database without the mark (one that
// existed before the run, used with AllowExistingData), with another run's
// mark, or that does not exist is kept, with the reason. dropDatabase is
// the only command it sends that changes anything, and only to db.
func DropOwnedDatabase(ctx context.Context, uri, db string, owner Owner, opts Options) (DropOutcome, error) {
	out := DropOutcome{Database: db}
	if db == "" || strings.ContainsAny(db, "/\\. \"$") {
		return out, fmt.Errorf("database name %q: want a MongoDB database name", db)
	}
	if db == adminDB || db == configDB || db == "local" {
		return out, fmt.Errorf("database %s belongs to MongoDB itself: never dropped", db)
	}
	r, ctx, cancel := newRunner(ctx, opts)
	defer cancel()
	defer r.close()
	entry := redactURI(uri)
	err := r.retry(ctx, "drop database "+db, func(ctx context.Context) error {
		names, err := r.collectionNames(ctx, uri, db)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			out.Reason = "it does not exist (nothing to drop)"
			return nil
		}
		mark, err := r.readOwnerMark(ctx, uri, db)
		if err != nil {
			return err
		}
		switch {
		case mark == nil:
			out.Reason = "it has no owner mark (" + contract.OwnerCollection + "): it existed before the run, which never drops such a database"
			return nil
		case mark.UID != owner.UID:
			out.Reason = fmt.Sprintf("its owner mark is run %s's (uid %s), not this run's (uid %s)", mark.Run, mark.UID, owner.UID)
			return nil
		}
		if _, err := r.run(ctx, uri, db, dropDatabaseCommand()); err != nil {
			return err
		}
		out.Dropped, out.Reason = true, ""
		return nil
	})
	if err != nil {
		return out, err
	}
	if out.Dropped {
		r.log.Info("database dropped", "hosts", entry, "database", db, "owner", owner.String())
	} else {
		r.log.Info("database kept", "hosts", entry, "database", db, "reason", out.Reason)
	}
	return out, nil
}
