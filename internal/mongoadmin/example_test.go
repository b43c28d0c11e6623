package mongoadmin_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/mongobench/mongobench/internal/mongoadmin"
	"github.com/mongobench/mongobench/internal/results"
)

// How `loader bootstrap` uses the package (compiled, not run: it needs a
// cluster).
func ExampleBootstrap() {
	topo := mongoadmin.Topology{
		Mode:         mongoadmin.ModeSharded,
		ConfigServer: mongoadmin.ReplicaSet{Name: "cfg", Host: "run-cfg-0.run-cfg:27019"},
		Shards: []mongoadmin.ReplicaSet{
			{Name: "shard0", Host: "run-shard0-0.run-shard0:27018"},
			{Name: "shard1", Host: "run-shard1-0.run-shard1:27018"},
		},
		Mongos:   "run-mongos-0.run-mongos:27017",
		ShardKey: mongoadmin.ShardKeyHashed,
	}
	opts := mongoadmin.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	report, err := mongoadmin.Bootstrap(context.Background(), topo, opts)
	if err != nil {
		slog.Error("bootstrap failed", "err", err)
		os.Exit(1)
	}
	b, err := results.EncodeBootstrap(report)
	if err != nil {
		os.Exit(1)
	}
	_ = b // written to the result ConfigMap under contract.BootstrapConfigMapKey
}

// How `loader collmod` uses the package: the validator arrives as the JSON
// of the BenchmarkRun's spec.collection.validator.
func ExampleApplyValidator() {
	validator, err := mongoadmin.ParseValidator([]byte(`{"$jsonSchema": {"bsonType": "object", "required": ["field0"]}}`))
	if err != nil {
		slog.Error("bad validator", "err", err)
		os.Exit(1)
	}
	uri := mongoadmin.DirectURI("run-mongos-0.run-mongos:27017")
	err = mongoadmin.ApplyValidator(context.Background(), uri, mongoadmin.DefaultNamespace, validator, "strict", "error", mongoadmin.Options{})
	if err != nil {
		slog.Error("collMod failed", "err", err)
		os.Exit(1)
	}
}
