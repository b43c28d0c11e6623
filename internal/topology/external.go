package topology

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// External reports whether a run benchmarks a MongoDB that mongobench did
// not deploy (topology.mode External).
func External(run *benchv1.BenchmarkRun) bool {
	return run.Spec.Topology.Mode == benchv1.TopologyExternal && run.Spec.Topology.External != nil
}

// maxDatabaseName is the longest database name MongoDB accepts: "fewer
// than 64 characters" (docs/manual/reference/limits, Naming Restrictions).
const maxDatabaseName = 63

// ExternalDatabase is an External run's own database: external.database,
// else mongobench_<run name> with the dots a Kubernetes name may have (and
// a database name may not) as underscores; a name too long for MongoDB is
// cut and ends in a hash of the whole, so that two long run names never
// share a database.
func ExternalDatabase(run *benchv1.BenchmarkRun) string {
	if e := run.Spec.Topology.External; e != nil && e.Database != "" {
		return e.Database
	}
	name := "mongobench_" + strings.ReplaceAll(run.Name, ".", "_")
	if len(name) <= maxDatabaseName {
		return name
	}
	sum := sha256.Sum256([]byte(run.Name))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	return name[:maxDatabaseName-len(suffix)] + suffix
}

// RunDatabase is the database a run's loaders write: the External run's
// own, else YCSB's default that mongobench's own deployments use.
func RunDatabase(run *benchv1.BenchmarkRun) string {
	if External(run) {
		return ExternalDatabase(run)
	}
	return Database
}

// RunNamespace is the benchmark collection's db.collection.
func RunNamespace(run *benchv1.BenchmarkRun) string {
	return RunDatabase(run) + "." + Collection
}

// OwnerArg is the run's identity for contract.FlagOwner: the owner mark
// the bootstrap writes and the only one dropdatabase drops under.
func OwnerArg(run *benchv1.BenchmarkRun) string {
	return run.Namespace + "/" + run.Name + "/" + string(run.UID)
}

// ShardCollection is external.shardCollection, default true.
func ShardCollection(run *benchv1.BenchmarkRun) bool {
	e := run.Spec.Topology.External
	return e == nil || e.ShardCollection == nil || *e.ShardCollection
}

// Where the TLS Secrets are mounted in an External run's Jobs.
const (
	tlsCAVolume     = "tls-ca"
	tlsCADir        = "/etc/mongobench/tls-ca"
	tlsClientVolume = "tls-client"
	tlsClientDir    = "/etc/mongobench/tls-client"
	// TLSCAFile is the CA's path (contract.FlagTLSCAFile).
	TLSCAFile = tlsCADir + "/ca.pem"
	// TLSCertFile and TLSKeyFile are the client certificate's paths,
	// from a kubernetes.io/tls Secret's keys.
	TLSCertFile = tlsClientDir + "/" + corev1.TLSCertKey
	TLSKeyFile  = tlsClientDir + "/" + corev1.TLSPrivateKeyKey
)

// withExternalConnection gives a Job's container what it connects to an
// External cluster with: the connection string from the user's Secret in
// contract.EnvURI (secretKeyRef: the pod spec names the Secret and the
// key, never the value; not optional, so a Secret deleted after the
// controller checked it keeps the container from starting), the monitor
// URI when asked for, and the TLS Secrets mounted read-only with the
// flags naming the files.
func withExternalConnection(run *benchv1.BenchmarkRun, j *batchv1.Job, monitor bool) {
	e := run.Spec.Topology.External
	ps := &j.Spec.Template.Spec
	c := &ps.Containers[0]
	c.Env = append(c.Env, secretEnv(contract.EnvURI, e.URISecretRef.Name, e.URISecretRef.Key))
	if monitor && e.MonitorURISecretRef != nil {
		c.Env = append(c.Env, secretEnv(contract.EnvMonitorURI, e.MonitorURISecretRef.Name, e.MonitorURISecretRef.Key))
	}
	if e.TLS == nil {
		return
	}
	if ca := e.TLS.CASecretRef; ca != nil {
		ps.Volumes = append(ps.Volumes, corev1.Volume{Name: tlsCAVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: ca.Name, DefaultMode: ptr.To[int32](0o440),
			Items: []corev1.KeyToPath{{Key: ca.Key, Path: "ca.pem"}}}}})
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: tlsCAVolume, MountPath: tlsCADir, ReadOnly: true})
		c.Args = append(c.Args, "--"+contract.FlagTLSCAFile, TLSCAFile)
	}
	if cc := e.TLS.ClientCertSecretRef; cc != nil {
		ps.Volumes = append(ps.Volumes, corev1.Volume{Name: tlsClientVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: cc.Name, DefaultMode: ptr.To[int32](0o440),
			Items: []corev1.KeyToPath{{Key: corev1.TLSCertKey, Path: corev1.TLSCertKey}, {Key: corev1.TLSPrivateKeyKey, Path: corev1.TLSPrivateKeyKey}}}}})
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: tlsClientVolume, MountPath: tlsClientDir, ReadOnly: true})
		c.Args = append(c.Args, "--"+contract.FlagTLSCertFile, TLSCertFile, "--"+contract.FlagTLSKeyFile, TLSKeyFile)
	}
}

// SecretKeys lists every Secret key an External run's Jobs read, for the
// controller to check before it creates any Job: the connection strings,
// the CA, the client certificate and its key.
func SecretKeys(run *benchv1.BenchmarkRun) []benchv1.SecretKeyRef {
	e := run.Spec.Topology.External
	if e == nil {
		return nil
	}
	refs := []benchv1.SecretKeyRef{e.URISecretRef}
	if e.MonitorURISecretRef != nil {
		refs = append(refs, *e.MonitorURISecretRef)
	}
	if e.TLS != nil {
		if e.TLS.CASecretRef != nil {
			refs = append(refs, *e.TLS.CASecretRef)
		}
		if cc := e.TLS.ClientCertSecretRef; cc != nil {
			refs = append(refs, benchv1.SecretKeyRef{Name: cc.Name, Key: corev1.TLSCertKey}, benchv1.SecretKeyRef{Name: cc.Name, Key: corev1.TLSPrivateKeyKey})
		}
	}
	return refs
}

// externalBootstrapArgs is `loader bootstrap --mode External`'s command
// line: the run's namespace and owner, the safety and sharding choices.
// No host, no user, no credential: the loader reads the URI from the
// environment.
func externalBootstrapArgs(run *benchv1.BenchmarkRun, cfg Config) []string {
	args := []string{"bootstrap", "--namespace", RunNamespace(run), "--timeout", cfg.BootstrapTimeout.String(),
		"--mode", contract.ModeExternal, "--" + contract.FlagOwner, OwnerArg(run),
		fmt.Sprintf("--%s=%t", contract.FlagShardCollection, ShardCollection(run))}
	if run.Spec.Topology.External.AllowExistingData {
		args = append(args, "--"+contract.FlagAllowExistingData)
	}
	if ShardCollection(run) {
		key := benchv1.ShardKeyHashed
		if run.Spec.Topology.ShardKey == benchv1.ShardKeyRanged {
			key = benchv1.ShardKeyRanged
		}
		args = append(args, "--shard-key", contract.FlagValue(key))
		if key == benchv1.ShardKeyRanged {
			args = append(args, loadKeyArgs(run, cfg.ClusterDomain)...)
		}
	}
	return args
}

// DropDatabaseJobName is the cleanup Job of an External run.
func DropDatabaseJobName(run *benchv1.BenchmarkRun) string { return run.Name + "-dropdatabase" }

// DropDatabaseJob runs `loader dropdatabase` at an External run's cleanup:
// it drops the run's database only when the database holds this run's
// owner mark (contract.OwnerCollection), so a database that existed
// before the run is never dropped. It writes no result: its outcome is
// the Job's condition and its log.
func DropDatabaseJob(run *benchv1.BenchmarkRun, cfg Config) *batchv1.Job {
	args := []string{"dropdatabase", "--namespace", RunNamespace(run), "--" + contract.FlagOwner, OwnerArg(run)}
	j := job(run, DropDatabaseJobName(run), benchv1.ComponentDropDatabase, "", 1, 10*time.Minute, container("dropdatabase", args, cfg, nil), nil)
	withExternalConnection(run, j, false)
	return j
}
