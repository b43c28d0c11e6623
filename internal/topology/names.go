package topology

import (
	"fmt"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// Ports of the MongoDB processes (MongoDB's conventions, as mlaunch uses).
const (
	PortMongod       = 27017
	PortShard        = 27018
	PortConfigServer = 27019
	PortMongos       = 27017
)

// Benchmark data location: YCSB's defaults.
const (
	Database   = "ycsb"
	Collection = "usertable"
	// Namespace is the benchmark collection's db.collection.
	Namespace = Database + "." + Collection
	// ConfigReplSet is the config server's replica set name.
	ConfigReplSet = "cfg"
)

// Process is one MongoDB process of a run's topology.
type Process struct {
	Role benchv1.ProcessRole
	// Name is the pod name, also its hostname.
	Name string
	// ReplSet is the replica set name (config server and shards).
	ReplSet string
	// Port the process listens on.
	Port int32
	// Index of a shard (0-based); 0 for other roles.
	Index int
	// Member is the process's member _id in its replica set (0-based):
	// the members of a ReplicaSet topology, of each shard and of the
	// config server count up; 0 for the others.
	Member int
}

// Processes lists the processes of a run in creation order. The first one
// is the anchor: it is scheduled freely (subject to placement) and every
// other process follows it to its node.
func Processes(run *benchv1.BenchmarkRun) []Process {
	if External(run) {
		// Nothing is deployed: the cluster under test is the user's.
		return nil
	}
	if run.Spec.Topology.Mode == benchv1.TopologyReplicaSet {
		return replicaSetProcesses(run)
	}
	if run.Spec.Topology.Mode != benchv1.TopologySharded {
		return []Process{{Role: benchv1.RoleStandalone, Name: run.Name + "-mongod", Port: PortMongod}}
	}
	var ps []Process
	for m := range int(ConfigServerMembers(run)) {
		ps = append(ps, Process{Role: benchv1.RoleConfigServer, Name: memberPodName(run.Name+"-cfg", m), ReplSet: ConfigReplSet, Port: PortConfigServer, Member: m})
	}
	for i := 0; i < int(ptrOr(run.Spec.Topology.Shards, 1)); i++ {
		name := ShardName(i)
		for m := range int(ShardMembers(run)) {
			ps = append(ps, Process{Role: benchv1.RoleShard, Name: memberPodName(run.Name+"-"+name, m), ReplSet: name, Port: PortShard, Index: i, Member: m})
		}
	}
	return append(ps, Process{Role: benchv1.RoleMongos, Name: run.Name + "-mongos", Port: PortMongos})
}

// ShardName is the replica set (and shard) name of shard i.
func ShardName(i int) string { return fmt.Sprintf("shard%d", i) }

// HeadlessServiceName gives every process a stable DNS name.
func HeadlessServiceName(run *benchv1.BenchmarkRun) string { return run.Name + "-db" }

// EntryServiceName is the Service loaders connect to (mongos or the
// standalone mongod).
func EntryServiceName(run *benchv1.BenchmarkRun) string { return run.Name + "-mongo" }

// Host is the stable DNS name of a process: <pod>.<headless>.<ns>.svc.<domain>.
// Replica set members must be initiated with a name that resolves to
// themselves, so it is the per-pod name, not a Service's.
func Host(run *benchv1.BenchmarkRun, p Process, clusterDomain string) string {
	return fmt.Sprintf("%s.%s.%s.svc.%s", p.Name, HeadlessServiceName(run), run.Namespace, clusterDomain)
}

// Address is host:port of a process.
func Address(run *benchv1.BenchmarkRun, p Process, clusterDomain string) string {
	return fmt.Sprintf("%s:%d", Host(run, p, clusterDomain), p.Port)
}

// EntryAddress is host:port of the entry Service.
func EntryAddress(run *benchv1.BenchmarkRun, clusterDomain string) string {
	return fmt.Sprintf("%s.%s.svc.%s:%d", EntryServiceName(run), run.Namespace, clusterDomain, PortMongod)
}

// DataClaimName is the PersistentVolumeClaim of a process's data.
func DataClaimName(p Process) string { return p.Name + "-data" }

// JobServiceAccountName is the identity of the run's Jobs (bootstrap,
// loaders, validator): allowed only to create their result ConfigMaps.
func JobServiceAccountName(run *benchv1.BenchmarkRun) string { return run.Name + "-jobs" }

// BootstrapJobName names the bootstrap Job.
func BootstrapJobName(run *benchv1.BenchmarkRun) string { return run.Name + "-bootstrap" }

// ValidatorJobName names the Job applying spec.collection.
func ValidatorJobName(run *benchv1.BenchmarkRun) string { return run.Name + "-validator" }

// DiagnosticsConfigMapName names the ConfigMap keeping a finished run's
// evidence (logs of failed containers, YCSB reports).
func DiagnosticsConfigMapName(run *benchv1.BenchmarkRun) string { return run.Name + "-diagnostics" }

// TelemetryConfigMapName names the ConfigMap keeping a phase's full server
// telemetry: <run>-telemetry-<phase>, lower-cased like PhaseJobName.
func TelemetryConfigMapName(run *benchv1.BenchmarkRun, phase string) string {
	return run.Name + "-telemetry-" + strings.ToLower(phase)
}

// HistogramsConfigMapName names the ConfigMap keeping a phase's merged
// result (its exactly merged histograms): <run>-<phase>-histograms,
// lower-cased like PhaseJobName. The suffix keeps it apart from every
// other ConfigMap of the run without reserving a phase name: result
// ConfigMaps end in -result-<i>, and <run>-telemetry-<p> would need a phase
// named telemetry or telemetry-…, which the API refuses.
func HistogramsConfigMapName(run *benchv1.BenchmarkRun, phase string) string {
	return PhaseJobName(run, phase) + "-histograms"
}

// PhaseJobName names a phase's loader Job: <run>-<phase>, lower-cased
// because phase names may use capitals (S2) and Job names may not.
func PhaseJobName(run *benchv1.BenchmarkRun, phase string) string {
	return run.Name + "-" + strings.ToLower(phase)
}

func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
