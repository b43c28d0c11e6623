package loader

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/mongoadmin"
	"github.com/mongobench/mongobench/internal/mongotls"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// A cluster mongobench did not deploy (mode External, issue 25). Every
// command connects with the connection string of contract.EnvURI, which
// the Jobs read from the user's Secret (secretKeyRef), and with the TLS
// files mounted from the user's Secrets. The string is a secret as a
// whole: no output of the loader shows more of it than its hosts.

// externalURI is contract.EnvURI, "" when unset.
func externalURI(env Env) string { return strings.TrimSpace(env.Getenv(contract.EnvURI)) }

// tlsFlags are the TLS files of an external cluster, read when the command
// runs (Parse reads no file: the contract tests parse Jobs whose mounts do
// not exist).
type tlsFlags struct{ files mongotls.Files }

func (f *tlsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.files.CA, contract.FlagTLSCAFile, "", "PEM `file` of the CA certificates the servers' certificates chain to "+
		"(turns TLS on; replaces the connection string's tlsCAFile)")
	fs.StringVar(&f.files.Cert, contract.FlagTLSCertFile, "", "PEM `file` of the client certificate (with --"+contract.FlagTLSKeyFile+")")
	fs.StringVar(&f.files.Key, contract.FlagTLSKeyFile, "", "PEM `file` of the client certificate's key (with --"+contract.FlagTLSCertFile+")")
}

// check rejects a certificate without its key, before any work.
func (f *tlsFlags) check() error {
	if (f.files.Cert == "") != (f.files.Key == "") {
		return usagef("--%s and --%s go together", contract.FlagTLSCertFile, contract.FlagTLSKeyFile)
	}
	return nil
}

// load reads the files; nil when none is given.
func (f *tlsFlags) load() (*tls.Config, error) {
	cfg, err := mongotls.Load(f.files)
	if err != nil {
		return nil, fmt.Errorf("TLS: %w", err)
	}
	return cfg, nil
}

// externalBootstrap is `loader bootstrap --mode External`'s part of the
// command line.
type externalBootstrap struct {
	ext   mongoadmin.External
	tls   tlsFlags
	owner string
}

// parseExternalBootstrap checks what --mode External takes: the connection
// string from the environment, --owner, and no flag of a topology
// mongobench deploys.
func parseExternalBootstrap(b *bootstrapArgs, tf topologyFlags, set map[string]bool, namespace string, env Env) error {
	if namespace == "" {
		namespace = mongoadmin.DefaultNamespace
	}
	eb := b.external
	if len(tf.configServers)+len(tf.shards)+len(tf.replicaSets) > 0 || tf.mongos != "" || tf.standalone != "" {
		return usagef("--config-server, --shard, --mongos, --replica-set and --standalone are not for --mode %s: "+
			"it connects with %s", contract.FlagValue(contract.ModeExternal), contract.EnvURI)
	}
	if b.keyfile != "" {
		return usagef("--%s is not for --mode %s: mongobench never authenticates as an external cluster's own user",
			contract.FlagKeyfile, contract.FlagValue(contract.ModeExternal))
	}
	uri := externalURI(env)
	if uri == "" {
		return usagef("--mode %s connects with %s, which is not set", contract.FlagValue(contract.ModeExternal), contract.EnvURI)
	}
	if !strings.HasPrefix(uri, "mongodb://") && !strings.HasPrefix(uri, "mongodb+srv://") {
		return usagef("%s: not a connection string (mongodb:// or mongodb+srv://)", contract.EnvURI)
	}
	if eb.owner == "" {
		return usagef("--%s is required with --mode %s", contract.FlagOwner, contract.FlagValue(contract.ModeExternal))
	}
	owner, err := mongoadmin.ParseOwner(eb.owner)
	if err != nil {
		return usagef("--%s: %w", contract.FlagOwner, err)
	}
	if err := eb.tls.check(); err != nil {
		return err
	}
	key, err := parseShardKey(tf.shardKey)
	if err != nil {
		return err
	}
	if !set[contract.FlagShardCollection] {
		eb.ext.ShardCollection = true
	}
	eb.ext.URI, eb.ext.Namespace, eb.ext.Owner, eb.ext.ShardKey = uri, namespace, owner, key
	return nil
}

// externalFlagsOutsideExternal names the flags of --mode External given
// with another mode.
func externalFlagsOutsideExternal(set map[string]bool) error {
	for _, f := range []string{contract.FlagOwner, contract.FlagAllowExistingData, contract.FlagShardCollection,
		contract.FlagTLSCAFile, contract.FlagTLSCertFile, contract.FlagTLSKeyFile} {
		if set[f] {
			return usagef("--%s is for --mode %s", f, contract.FlagValue(contract.ModeExternal))
		}
	}
	return nil
}

// runExternalBootstrap runs a parsed `loader bootstrap --mode External`.
// A TargetNotEmpty refusal exits contract.ExitTargetNotEmpty.
func runExternalBootstrap(ctx context.Context, b *bootstrapArgs, env Env) error {
	cm, err := b.sink.prepare(env, 0)
	if err != nil {
		return err
	}
	log := adminLogger(env)
	eb := b.external
	tlsCfg, err := eb.tls.load()
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if b.loadProps != nil {
		eb.ext.SplitPoints = func(ctx context.Context, n int) ([]string, error) {
			_, plan, err := splitPoints(ctx, b.loadProps, n, b.timeout, log)
			if err != nil {
				return nil, err
			}
			points := make([]string, len(plan))
			for i, p := range plan {
				points[i] = p.Key
			}
			return points, nil
		}
	}
	opts := mongoadmin.Options{Logger: log, Timeout: b.timeout, Dial: mongoadmin.DialDriverWith(nil, tlsCfg)}
	boot, err := mongoadmin.BootstrapExternal(ctx, eb.ext, opts)
	if err != nil {
		var tne *mongoadmin.TargetNotEmptyError
		switch {
		case ctx.Err() != nil:
			return signalExit(ctx, fmt.Errorf("bootstrap: %w", err))
		case errors.As(err, &tne):
			return exitError{code: contract.ExitTargetNotEmpty, err: tne}
		}
		return fmt.Errorf("bootstrap: %w", err)
	}
	return writeBootstrapResult(ctx, boot, cm, env)
}

// writeBootstrapResult prints the result and writes it to the result
// ConfigMap when there is one.
func writeBootstrapResult(ctx context.Context, boot *results.Bootstrap, cm *configMapSink, env Env) error {
	enc, err := results.EncodeBootstrap(boot)
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	_, _ = fmt.Fprintf(env.Stdout, "%s\n", enc)
	if cm != nil {
		return cm.write(ctx, map[string]string{contract.BootstrapConfigMapKey: string(enc)}, nil)
	}
	return nil
}

// parseShardKey maps --shard-key onto mongoadmin's shard keys.
func parseShardKey(s string) (mongoadmin.ShardKey, error) {
	switch strings.ToLower(s) {
	case contract.FlagValue(mongoadmin.ShardKeyHashed):
		return mongoadmin.ShardKeyHashed, nil
	case contract.FlagValue(mongoadmin.ShardKeyRanged):
		return mongoadmin.ShardKeyRanged, nil
	}
	return "", usagef("--shard-key: %q: want hashed or ranged", s)
}

// dropDatabaseArgs is the parsed command line of `loader dropdatabase`.
type dropDatabaseArgs struct {
	uri, database string
	owner         mongoadmin.Owner
	timeout       time.Duration
	tls           tlsFlags
}

// parseDropDatabaseArgs parses `loader dropdatabase`; nothing is sent.
func parseDropDatabaseArgs(args []string, env Env) (*dropDatabaseArgs, error) {
	var (
		a                dropDatabaseArgs
		namespace, owner string
	)
	fs := newFlagSet(contract.CommandDropDatabase, "--namespace DB.COLLECTION --owner NAMESPACE/NAME/UID [flags]", env)
	fs.StringVar(&namespace, "namespace", "", "the run's collection, `db.collection`: its database is dropped if it holds the run's owner mark")
	fs.StringVar(&owner, contract.FlagOwner, "", "the run, `namespace/name/uid`, whose owner mark ("+contract.OwnerCollection+
		") the database must hold")
	fs.DurationVar(&a.timeout, "timeout", 2*time.Minute, "bound of the whole operation, retries included")
	a.tls.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if a.uri = externalURI(env); a.uri == "" {
		return nil, usagef("%s connects with %s, which is not set", contract.CommandDropDatabase, contract.EnvURI)
	}
	db, _, ok := strings.Cut(namespace, ".")
	if !ok || db == "" {
		return nil, usagef("--namespace %q: want db.collection", namespace)
	}
	a.database = db
	var err error
	if a.owner, err = mongoadmin.ParseOwner(owner); err != nil {
		return nil, usagef("--%s: %w", contract.FlagOwner, err)
	}
	if a.timeout <= 0 {
		return nil, usagef("--timeout: %v must be positive", a.timeout)
	}
	if err := a.tls.check(); err != nil {
		return nil, err
	}
	return &a, nil
}

// runDropDatabase drops the run's database if it holds the run's mark, and
// prints one line saying what it did: contract.DropDatabaseDroppedPrefix,
// or contract.DropDatabaseKeptPrefix and why. Both exit 0: keeping a
// database that is not the run's is the cleanup working, not failing.
func runDropDatabase(ctx context.Context, a *dropDatabaseArgs, env Env) error {
	tlsCfg, err := a.tls.load()
	if err != nil {
		return fmt.Errorf("%s: %w", contract.CommandDropDatabase, err)
	}
	opts := mongoadmin.Options{Timeout: a.timeout, Logger: adminLogger(env), Dial: mongoadmin.DialDriverWith(nil, tlsCfg)}
	out, err := mongoadmin.DropOwnedDatabase(ctx, a.uri, a.database, a.owner, opts)
	if err != nil {
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("%s: %w", contract.CommandDropDatabase, err))
		}
		return fmt.Errorf("%s: %w", contract.CommandDropDatabase, err)
	}
	_, _ = fmt.Fprintln(env.Stdout, out.Line())
	return nil
}

// checkExternalLoadProps reads the Load phase's properties of a ranged
// external bootstrap (-P, -p): the shard count is known only once
// listShards answered, so the split points are computed then.
func (b *bootstrapArgs) checkExternalLoadProps(files, props stringList) error {
	ranged := b.external.ext.ShardKey == mongoadmin.ShardKeyRanged && b.external.ext.ShardCollection
	if len(files)+len(props) == 0 {
		return nil
	}
	if !ranged {
		return usagef("-P and -p (the Load phase's properties) are for --shard-key ranged")
	}
	p, err := ycsb.LoadProperties(files, props)
	if err != nil {
		return usageError{err}
	}
	if _, err := ycsb.LoadKeys(p); err != nil {
		return usageError{err}
	}
	b.loadProps = p
	return nil
}

// connectionConfig is the binding's configuration of load, run and grow:
// from the properties, with contract.EnvURI in place of mongodb.url when
// it is set (mongodb.ConfigFromURI: giving both is a usage error).
func connectionConfig(p *ycsb.Properties, env Env) (mongodb.Config, error) {
	var cfg mongodb.Config
	var err error
	if uri := externalURI(env); uri != "" {
		cfg, err = mongodb.ConfigFromURI(p, uri)
	} else {
		cfg, err = mongodb.ConfigFromProperties(p)
	}
	if err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}
