package loader

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/mongoadmin"
	"github.com/mongobench/mongobench/internal/results"
)

// The in-cluster administration commands, run by the controller's
// bootstrap and validator Jobs with exactly these flags
// (internal/topology/jobs.go).

// replicaSetList is a repeatable NAME=HOST:PORT flag.
type replicaSetList []mongoadmin.ReplicaSet

func (l *replicaSetList) String() string {
	parts := make([]string, len(*l))
	for i, rs := range *l {
		parts[i] = rs.Name + "=" + rs.Host
	}
	return strings.Join(parts, ",")
}

func (l *replicaSetList) Set(v string) error {
	name, host, ok := strings.Cut(v, "=")
	if !ok || name == "" || host == "" {
		return fmt.Errorf("%q: want NAME=HOST:PORT", v)
	}
	*l = append(*l, mongoadmin.ReplicaSet{Name: name, Host: host})
	return nil
}

func adminLogger(env Env) *slog.Logger { return slog.New(slog.NewTextHandler(env.Stderr, nil)) }

// bootstrapCommand is `loader bootstrap`: mongoadmin.Bootstrap, then the
// report to stdout and, with --result-configmap, to ConfigMap NAME-0 (data
// key results.BootstrapConfigMapKey).
func bootstrapCommand(ctx context.Context, args []string, env Env) error {
	var (
		namespace, mode, shardKey, mongos, standalone string
		timeout                                       time.Duration
		configServers, shards                         replicaSetList
		sink                                          resultFlags
	)
	fs := newFlagSet("bootstrap", "--mode sharded|standalone [flags]", env)
	fs.StringVar(&namespace, "namespace", mongoadmin.DefaultNamespace, "benchmark collection, `db.collection` (a MongoDB namespace)")
	fs.DurationVar(&timeout, "timeout", mongoadmin.DefaultTimeout, "bound of the whole bootstrap, retries included")
	fs.StringVar(&mode, "mode", "", "topology: `sharded` or standalone")
	fs.StringVar(&shardKey, "shard-key", "hashed", "shard key of the collection (sharded): `hashed` ({_id: hashed}) or ranged ({_id: 1})")
	fs.Var(&configServers, "config-server", "config server replica set `NAME=HOST:PORT` (sharded)")
	fs.Var(&shards, "shard", "shard replica set `NAME=HOST:PORT` (sharded), repeatable")
	fs.StringVar(&mongos, "mongos", "", "mongos `HOST:PORT` (sharded)")
	fs.StringVar(&standalone, "standalone", "", "the mongod's `HOST:PORT` (standalone)")
	sink.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}

	topo := mongoadmin.Topology{Namespace: namespace}
	switch strings.ToLower(mode) {
	case "sharded":
		topo.Mode = mongoadmin.ModeSharded
		if len(configServers) != 1 {
			return usagef("--config-server: want exactly one, got %d", len(configServers))
		}
		topo.ConfigServer, topo.Shards, topo.Mongos = configServers[0], shards, mongos
		switch strings.ToLower(shardKey) {
		case "hashed":
			topo.ShardKey = mongoadmin.ShardKeyHashed
		case "ranged":
			topo.ShardKey = mongoadmin.ShardKeyRanged
		default:
			return usagef("--shard-key: %q: want hashed or ranged", shardKey)
		}
		if standalone != "" {
			return usagef("--standalone is for --mode standalone")
		}
	case "standalone":
		topo.Mode, topo.Standalone = mongoadmin.ModeStandalone, standalone
		if len(configServers)+len(shards) > 0 || mongos != "" {
			return usagef("--config-server, --shard and --mongos are for --mode sharded")
		}
	default:
		return usagef("--mode: %q: want sharded or standalone", mode)
	}
	if err := topo.Validate(); err != nil {
		return usageError{err}
	}
	if timeout <= 0 {
		return usagef("--timeout: %v must be positive", timeout)
	}
	cm, err := sink.prepare(env, 0)
	if err != nil {
		return err
	}

	report, err := mongoadmin.Bootstrap(ctx, topo, mongoadmin.Options{Timeout: timeout, Logger: adminLogger(env)})
	if err != nil {
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("bootstrap: %w", err))
		}
		return fmt.Errorf("bootstrap: %w", err)
	}
	enc, err := results.EncodeBootstrap(report)
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	_, _ = fmt.Fprintf(env.Stdout, "%s\n", enc)
	if cm != nil {
		return cm.write(ctx, map[string]string{results.BootstrapConfigMapKey: string(enc)}, nil)
	}
	return nil
}

// collModCommand is `loader collmod`: mongoadmin.ParseValidator and
// ApplyValidator. The exit code is the outcome; there is no result.
func collModCommand(ctx context.Context, args []string, env Env) error {
	var (
		uri, namespace, validatorJSON, level, action string
		timeout                                      time.Duration
	)
	fs := newFlagSet("collmod", "--uri URI --validator JSON [flags]", env)
	fs.StringVar(&uri, "uri", "", "MongoDB connection string (`URI`) of the entry point (mongos or mongod)")
	fs.StringVar(&namespace, "namespace", mongoadmin.DefaultNamespace, "collection, `db.collection`")
	fs.StringVar(&validatorJSON, "validator", "", "the validator as (extended) `JSON`, e.g. {\"$jsonSchema\": {...}}")
	fs.StringVar(&level, "validation-level", "", "validationLevel: `off|strict|moderate` (empty: MongoDB's default, strict)")
	fs.StringVar(&action, "validation-action", "", "validationAction: `error|warn` (empty: MongoDB's default, error)")
	fs.DurationVar(&timeout, "timeout", 2*time.Minute, "bound of the whole operation, retries included")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if uri == "" {
		return usagef("--uri is required")
	}
	if timeout <= 0 {
		return usagef("--timeout: %v must be positive", timeout)
	}
	validator, err := mongoadmin.ParseValidator([]byte(validatorJSON))
	if err != nil {
		return usagef("--validator: %w", err)
	}
	err = mongoadmin.ApplyValidator(ctx, uri, namespace, validator, level, action, mongoadmin.Options{Timeout: timeout, Logger: adminLogger(env)})
	if err != nil {
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("collmod: %w", err))
		}
		return fmt.Errorf("collmod: %w", err)
	}
	return nil
}
