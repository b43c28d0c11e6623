package loader

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/mongoadmin"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// The in-cluster administration commands, run by the controller's
// bootstrap and validator Jobs with exactly these flags
// (internal/topology/jobs.go).

// replicaSetList is a repeatable NAME=HOST:PORT[,HOST:PORT...] flag: a
// replica set and its members, member _id 0 first.
type replicaSetList []mongoadmin.ReplicaSet

func (l *replicaSetList) String() string {
	parts := make([]string, len(*l))
	for i, rs := range *l {
		parts[i] = rs.Name + "=" + strings.Join(rs.Members(), ",")
	}
	return strings.Join(parts, " ")
}

func (l *replicaSetList) Set(v string) error {
	name, hosts, ok := strings.Cut(v, "=")
	if !ok || name == "" || hosts == "" {
		return fmt.Errorf("%q: want NAME=HOST:PORT[,HOST:PORT...]", v)
	}
	members := strings.Split(hosts, ",")
	for _, h := range members {
		if h == "" {
			return fmt.Errorf("%q: an empty member: want NAME=HOST:PORT[,HOST:PORT...]", v)
		}
	}
	*l = append(*l, mongoadmin.ReplicaSet{Name: name, Host: members[0], Others: members[1:]})
	return nil
}

func adminLogger(env Env) *slog.Logger { return slog.New(slog.NewTextHandler(env.Stderr, nil)) }

// bootstrapArgs is the parsed command line of `loader bootstrap`.
type bootstrapArgs struct {
	topo    mongoadmin.Topology
	timeout time.Duration
	sink    resultFlags
	// loadProps are the Load phase's properties (-P, -p) from which a
	// ranged collection's split points are computed; nil unless the shard
	// key is ranged over several shards.
	loadProps *ycsb.Properties
	// keyfile is --keyfile: the path of the run's keyfile, read when the
	// bootstrap runs; empty without access control.
	keyfile string
	// external is set for --mode External (external.go).
	external *externalBootstrap
}

// topologyFlags are the flags of `loader bootstrap` that say what the
// topology is.
type topologyFlags struct {
	mode, shardKey, mongos, standalone string
	configServers, shards, replicaSets replicaSetList
}

// topology is the topology the flags describe; a flag that does not
// belong to --mode is a usage error.
func (tf topologyFlags) topology(namespace string) (mongoadmin.Topology, error) {
	topo := mongoadmin.Topology{Namespace: namespace}
	switch strings.ToLower(tf.mode) {
	case contract.FlagValue(mongoadmin.ModeSharded):
		return tf.sharded(topo)
	case contract.FlagValue(mongoadmin.ModeStandalone):
		topo.Mode, topo.Standalone = mongoadmin.ModeStandalone, tf.standalone
		if len(tf.configServers)+len(tf.shards) > 0 || tf.mongos != "" {
			return topo, usagef("--config-server, --shard and --mongos are for --mode sharded")
		}
		if len(tf.replicaSets) > 0 {
			return topo, usagef("--replica-set is for --mode replicaset")
		}
	case contract.FlagValue(mongoadmin.ModeReplicaSet):
		topo.Mode = mongoadmin.ModeReplicaSet
		if len(tf.replicaSets) != 1 {
			return topo, usagef("--replica-set: want exactly one, got %d", len(tf.replicaSets))
		}
		topo.ReplicaSet = tf.replicaSets[0]
		if len(tf.configServers)+len(tf.shards) > 0 || tf.mongos != "" || tf.standalone != "" {
			return topo, usagef("--config-server, --shard, --mongos and --standalone are not for --mode replicaset")
		}
	default:
		return topo, usagef("--mode: %q: want sharded, standalone, replicaset or external", tf.mode)
	}
	return topo, nil
}

func (tf topologyFlags) sharded(topo mongoadmin.Topology) (mongoadmin.Topology, error) {
	topo.Mode = mongoadmin.ModeSharded
	if len(tf.configServers) != 1 {
		return topo, usagef("--config-server: want exactly one, got %d", len(tf.configServers))
	}
	if len(tf.replicaSets) > 0 {
		return topo, usagef("--replica-set is for --mode replicaset")
	}
	topo.ConfigServer, topo.Shards, topo.Mongos = tf.configServers[0], tf.shards, tf.mongos
	key, err := parseShardKey(tf.shardKey)
	if err != nil {
		return topo, err
	}
	topo.ShardKey = key
	if tf.standalone != "" {
		return topo, usagef("--standalone is for --mode sharded")
	}
	return topo, nil
}

// parseBootstrapArgs parses and checks the command line; nothing is sent.
func parseBootstrapArgs(args []string, env Env) (*bootstrapArgs, error) {
	var (
		namespace    string
		tf           topologyFlags
		files, props stringList
		b            bootstrapArgs
	)
	eb := &externalBootstrap{}
	fs := newFlagSet("bootstrap", "--mode sharded|standalone|replicaset|external [flags]", env)
	fs.StringVar(&namespace, "namespace", mongoadmin.DefaultNamespace, "benchmark collection, `db.collection` (a MongoDB namespace)")
	fs.DurationVar(&b.timeout, "timeout", mongoadmin.DefaultTimeout, "bound of the whole bootstrap, retries and the split points' computation included")
	fs.StringVar(&tf.mode, "mode", "", "topology: `sharded`, standalone or replicaset; or external, a cluster mongobench did not "+
		"deploy, reached through "+contract.EnvURI+": detected, never provisioned")
	fs.StringVar(&tf.shardKey, "shard-key", contract.FlagValue(mongoadmin.ShardKeyHashed),
		"shard key of the collection (sharded): `hashed` ({_id: hashed}) or ranged ({_id: 1}, "+
			"pre-split at the quantiles of the keys the Load phase inserts, one range per shard)")
	fs.Var(&tf.configServers, "config-server", "config server replica set `NAME=HOST:PORT[,HOST:PORT...]` (sharded): every member, member 0 first")
	fs.Var(&tf.shards, "shard", "shard replica set `NAME=HOST:PORT[,HOST:PORT...]` (sharded): every member, member 0 first; repeatable")
	fs.StringVar(&tf.mongos, "mongos", "", "mongos `HOST:PORT` (sharded)")
	fs.Var(&tf.replicaSets, "replica-set", "the replica set `NAME=HOST:PORT[,HOST:PORT...]` (replicaset): every member, member 0 first")
	fs.StringVar(&tf.standalone, "standalone", "", "the mongod's `HOST:PORT` (standalone)")
	fs.Var(&files, "P", "the Load phase's workload `file` or built-in name, as `loader load -P` takes it (--shard-key ranged); repeatable")
	fs.Var(&props, "p", "the Load phase's property `name=value`, as `loader load -p` takes it (--shard-key ranged); repeatable; "+
		"only "+strings.Join(ycsb.LoadKeyProperties(), ", ")+" matter")
	fs.StringVar(&b.keyfile, contract.FlagKeyfile, "", "`PATH` of the run's keyfile, for members started with --keyFile: "+
		"every connection authenticates as the cluster (__system, SCRAM-SHA-256), and once the collection exists the users "+
		"of the environment are created: "+contract.EnvUsername+"/"+contract.EnvPassword+" (role root) and "+
		contract.EnvMonitorUsername+"/"+contract.EnvMonitorPassword+" (role clusterMonitor, also on each shard)")
	fs.StringVar(&eb.owner, contract.FlagOwner, "", "the run, `namespace/name/uid` (external): written as the owner mark ("+
		contract.OwnerCollection+") into an empty database, which only then is the run's to drop")
	fs.BoolVar(&eb.ext.AllowExistingData, contract.FlagAllowExistingData, false, "use a database that already holds collections "+
		"(external); without it such a database fails the bootstrap with exit "+fmt.Sprint(contract.ExitTargetNotEmpty)+
		" and nothing is written. It is then never dropped")
	fs.BoolVar(&eb.ext.ShardCollection, contract.FlagShardCollection, true, "shard the collection when the external cluster is "+
		"sharded (external), with --shard-key; the balancer is never touched")
	eb.tls.register(fs)
	b.sink.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	set := flagsSet(fs)

	var err error
	if strings.EqualFold(tf.mode, contract.ModeExternal) {
		b.external = eb
		if err := parseExternalBootstrap(&b, tf, set, namespace, env); err != nil {
			return nil, err
		}
		if err := b.checkExternalLoadProps(files, props); err != nil {
			return nil, err
		}
		if b.timeout <= 0 {
			return nil, usagef("--timeout: %v must be positive", b.timeout)
		}
		return &b, nil
	}
	if err := externalFlagsOutsideExternal(set); err != nil {
		return nil, err
	}
	if b.topo, err = tf.topology(namespace); err != nil {
		return nil, err
	}
	if b.topo.Users, err = bootstrapUsers(b.keyfile, env.Getenv); err != nil {
		return nil, err
	}
	shards := tf.shards
	if b.timeout <= 0 {
		return nil, usagef("--timeout: %v must be positive", b.timeout)
	}
	ranged := b.topo.Mode == mongoadmin.ModeSharded && b.topo.ShardKey == mongoadmin.ShardKeyRanged
	if !ranged && len(files)+len(props) > 0 {
		return nil, usagef("-P and -p (the Load phase's properties) are for --shard-key ranged")
	}
	if ranged && len(shards) > 1 {
		if len(files)+len(props) == 0 {
			return nil, usagef("--shard-key ranged over %d shards needs the Load phase's properties (-P, -p recordcount=...): "+
				"the split points are the quantiles of the keys it inserts", len(shards))
		}
		p, err := ycsb.LoadProperties(files, props)
		if err != nil {
			return nil, usageError{err}
		}
		keys, err := ycsb.LoadKeys(p)
		if err != nil {
			return nil, usageError{err}
		}
		if keys.Count < int64(len(shards)) {
			return nil, usagef("--shard-key ranged over %d shards: the Load phase inserts %d records, fewer than one per shard", len(shards), keys.Count)
		}
		b.loadProps = p
	}
	// The split points are computed later (runBootstrap): check the
	// rest of the topology now, as if it were hashed.
	check := b.topo
	if b.loadProps != nil {
		check.ShardKey = mongoadmin.ShardKeyHashed
	}
	if err := check.Validate(); err != nil {
		return nil, usageError{err}
	}
	return &b, nil
}

// runBootstrap runs a parsed `loader bootstrap`: for a ranged shard key over
// several shards, the split points (the quantiles of the keys the Load
// phase inserts, ycsb.KeySet.SplitPoints), then mongoadmin.Bootstrap, then
// the result (results.Bootstrap) to stdout and, with --result-configmap, to ConfigMap NAME-0
// (data key contract.BootstrapConfigMapKey).
func runBootstrap(ctx context.Context, b *bootstrapArgs, env Env) error {
	if b.external != nil {
		return runExternalBootstrap(ctx, b, env)
	}
	cm, err := b.sink.prepare(env, 0)
	if err != nil {
		return err
	}
	log := adminLogger(env)
	opts := mongoadmin.Options{Logger: log}
	if b.keyfile != "" {
		// Before anything long: a keyfile mongod would refuse fails now.
		key, err := readKeyfile(b.keyfile)
		if err != nil {
			return fmt.Errorf("bootstrap: --%s: %w", contract.FlagKeyfile, err)
		}
		opts.Dial = mongoadmin.DialDriverWithCredential(clusterCredential(key))
		log.Info("authenticating as the cluster", "user", clusterUser, "keyfile", b.keyfile, "users", b.topo.Users)
	}
	start := time.Now()
	var plan []ycsb.SplitPoint
	var keys ycsb.KeySet
	if b.loadProps != nil {
		if keys, plan, err = splitPoints(ctx, b.loadProps, len(b.topo.Shards), b.timeout, log); err != nil {
			if ctx.Err() != nil {
				return signalExit(ctx, fmt.Errorf("bootstrap: %w", err))
			}
			return fmt.Errorf("bootstrap: %w", err)
		}
		for _, p := range plan {
			b.topo.SplitPoints = append(b.topo.SplitPoints, p.Key)
		}
	}
	remaining := b.timeout - time.Since(start)
	if remaining <= 0 {
		return fmt.Errorf("bootstrap: computing the split points took the whole --timeout of %v", b.timeout)
	}

	opts.Timeout = remaining
	boot, err := mongoadmin.Bootstrap(ctx, b.topo, opts)
	if err != nil {
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("bootstrap: %w", err))
		}
		return fmt.Errorf("bootstrap: %w", err)
	}
	logShardRanges(log, boot, keys, plan)
	return writeBootstrapResult(ctx, boot, cm, env)
}

// splitPoints computes where a ranged collection is cut into n ranges: the
// quantiles of the keys the Load phase inserts, so that each shard owns its
// share of the loaded records to within one. It is bounded by timeout.
func splitPoints(ctx context.Context, loadProps *ycsb.Properties, n int, timeout time.Duration, log *slog.Logger) (ycsb.KeySet, []ycsb.SplitPoint, error) {
	keys, err := ycsb.LoadKeys(loadProps)
	if err != nil {
		return keys, nil, fmt.Errorf("the keys of the Load phase: %w", err)
	}
	log.Info("computing split points", "keys", keys.String(), "ranges", n)
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	plan, err := keys.SplitPoints(cctx, n)
	if err != nil {
		return keys, nil, fmt.Errorf("split points of %s: %w", keys, err)
	}
	points := make([]string, len(plan))
	for i, p := range plan {
		points[i] = p.Key
	}
	log.Info("split points", "points", points, "took", time.Since(start).Round(time.Millisecond))
	return keys, plan, nil
}

// logShardRanges prints, per shard, the range it owns after a ranged
// pre-split and how many of the Load phase's records fall in it.
func logShardRanges(log *slog.Logger, boot *results.Bootstrap, keys ycsb.KeySet, plan []ycsb.SplitPoint) {
	if len(plan) == 0 {
		return
	}
	for i, sh := range boot.Shards {
		if sh.Range == nil || i > len(plan) {
			continue
		}
		lo, hi := int64(0), keys.Count
		if i > 0 {
			lo = plan[i-1].Rank
		}
		if i < len(plan) {
			hi = plan[i].Rank
		}
		log.Info("shard range", "shard", sh.Name, "min", sh.Range.Min, "max", sh.Range.Max, "chunks", sh.Chunks, "loadRecords", hi-lo)
	}
}

// collModArgs is the parsed command line of `loader collmod`.
type collModArgs struct {
	uri, namespace, level, action string
	validator                     bson.Raw
	timeout                       time.Duration
	// credential is the admin user's, from the environment; nil without.
	credential *options.Credential
	tls        tlsFlags
}

// parseCollModArgs parses and checks `loader collmod`'s command line and
// its validator; nothing is sent.
func parseCollModArgs(args []string, env Env) (*collModArgs, error) {
	var (
		a             collModArgs
		validatorJSON string
	)
	fs := newFlagSet("collmod", "--uri URI --validator JSON [flags]", env)
	fs.StringVar(&a.uri, "uri", "", "MongoDB connection string (`URI`) of the entry point (mongos or mongod); "+
		"an external cluster's comes from "+contract.EnvURI+" instead")
	fs.StringVar(&a.namespace, "namespace", mongoadmin.DefaultNamespace, "collection, `db.collection`")
	fs.StringVar(&validatorJSON, "validator", "", "the validator as (extended) `JSON`, e.g. {\"$jsonSchema\": {...}}")
	fs.StringVar(&a.level, "validation-level", "", "validationLevel: `off|strict|moderate` (empty: MongoDB's default, strict)")
	fs.StringVar(&a.action, "validation-action", "", "validationAction: `error|warn` (empty: MongoDB's default, error)")
	fs.DurationVar(&a.timeout, "timeout", 2*time.Minute, "bound of the whole operation, retries included")
	a.tls.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := a.tls.check(); err != nil {
		return nil, err
	}
	switch uri := externalURI(env); {
	case uri != "" && a.uri != "":
		return nil, usagef("--uri and %s are both set: an external cluster's connection string comes from %s only",
			contract.EnvURI, contract.EnvURI)
	case uri != "":
		a.uri = uri
	case a.uri == "":
		return nil, usagef("--uri is required")
	}
	if a.timeout <= 0 {
		return nil, usagef("--timeout: %v must be positive", a.timeout)
	}
	var err error
	if a.validator, err = mongoadmin.ParseValidator([]byte(validatorJSON)); err != nil {
		return nil, usagef("--validator: %w", err)
	}
	if a.credential, err = adminCredential(env.Getenv); err != nil {
		return nil, err
	}
	return &a, nil
}

// runCollMod runs a parsed `loader collmod`: mongoadmin.ApplyValidator. The
// exit code is the outcome; there is no result.
func runCollMod(ctx context.Context, a *collModArgs, env Env) error {
	tlsCfg, err := a.tls.load()
	if err != nil {
		return fmt.Errorf("collmod: %w", err)
	}
	opts := mongoadmin.Options{Timeout: a.timeout, Logger: adminLogger(env), Dial: mongoadmin.DialDriverWith(a.credential, tlsCfg)}
	err = mongoadmin.ApplyValidator(ctx, a.uri, a.namespace, a.validator, a.level, a.action, opts)
	if err != nil {
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("collmod: %w", err))
		}
		return fmt.Errorf("collmod: %w", err)
	}
	return nil
}
