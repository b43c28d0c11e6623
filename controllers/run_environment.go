package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// Environment is what the manager knows of its own surroundings, resolved
// once at startup.
type Environment struct {
	// KubernetesVersion is the API server's gitVersion.
	KubernetesVersion string
	// ManagerVersion is this manager's version.
	ManagerVersion string
	// DriverVersion is the MongoDB Go driver's version (the loader's).
	DriverVersion string
}

// Node labels the environment reads.
const (
	labelInstanceType = "node.kubernetes.io/instance-type"
	labelZone         = "topology.kubernetes.io/zone"
)

// recordEnvironment records, once the topology is ready, what the run's
// numbers come from (status.environment), labels the run with its
// fingerprint, and sets the Warnings condition. It never stops the run: an
// environment that cannot be read completely is recorded as far as it can.
func (r *BenchmarkRunReconciler) recordEnvironment(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if run.Status.Environment != nil && run.Status.Environment.Fingerprint != "" {
		return true, r.labelFingerprint(ctx, run)
	}
	env := &benchv1.EnvironmentStatus{
		KubernetesVersion: r.Environment.KubernetesVersion,
		ManagerVersion:    r.Environment.ManagerVersion,
		LoaderImage:       r.Topology.LoaderImage,
		DriverVersion:     r.Environment.DriverVersion,
	}
	if run.Status.Environment != nil {
		env.MongoDB = run.Status.Environment.MongoDB // recorded by the bootstrap
	}
	var node *corev1.Node
	if topology.External(run) {
		// The servers run on machines the run knows nothing of.
		env.Node = &benchv1.NodeEnvironment{Name: externalNode}
	}
	if run.Status.NodeName != "" {
		n := &corev1.Node{}
		err := r.APIReader.Get(ctx, client.ObjectKey{Name: run.Status.NodeName}, n)
		switch {
		case err == nil:
			node = n
			env.Node = nodeEnvironment(node)
		case apierrors.IsForbidden(err) || apierrors.IsNotFound(err):
			// A namespace-scoped install may not read Nodes.
			env.Node = &benchv1.NodeEnvironment{Name: run.Status.NodeName}
		default:
			return false, fmt.Errorf("get node %s: %w", run.Status.NodeName, err)
		}
	}
	if topology.Spread(run) {
		nodes, err := r.spreadNodeEnvironments(ctx, run)
		if err != nil {
			return false, err
		}
		env.Nodes = nodes
	}
	var warnings, notGuaranteed []string
	if node != nil {
		if w := diskRoomFor(run, node); w != "" {
			warnings = append(warnings, w)
		}
	}
	if topology.Spread(run) {
		// Against the nodes that could take the run's pods, not the ones
		// that did: the question is whether the pool has room, which is
		// what an operator changes.
		w, err := r.spreadDiskWarning(ctx, run)
		if err != nil {
			return false, err
		}
		if w != "" {
			warnings = append(warnings, w)
		}
	}
	for _, p := range topology.Processes(run) {
		pod := s.pods[p.Name]
		if pod == nil {
			continue
		}
		env.DatabasePods = append(env.DatabasePods, benchv1.PodEnvironment{Pod: p.Name, Role: p.Role, QOSClass: pod.Status.QOSClass})
		if pod.Status.QOSClass != corev1.PodQOSGuaranteed {
			notGuaranteed = append(notGuaranteed, fmt.Sprintf("%s (%s)", p.Name, orUnknown(string(pod.Status.QOSClass))))
		}
	}
	for i := range run.Spec.Phases {
		env.Phases = append(env.Phases, benchv1.PhaseEnvironment{Name: run.Spec.Phases[i].Name,
			Properties: topology.PhaseProperties(run, &run.Spec.Phases[i], r.Topology.ClusterDomain)})
	}
	fp, err := fingerprint(run, env)
	if err != nil {
		return false, err
	}
	env.Fingerprint = fp
	run.Status.Environment = env
	if len(notGuaranteed) > 0 {
		warnings = append(warnings, "database pods that are not Guaranteed QoS may be CPU-throttled, which skews the numbers "+
			"(set equal requests and limits, whole CPUs): "+strings.Join(notGuaranteed, ", "))
	}
	if env.MongoDB != nil {
		for _, p := range env.MongoDB.Processes {
			if n := len(p.StartupWarnings); n > 0 {
				warnings = append(warnings, fmt.Sprintf("%s logged %d startup warnings (status.environment.mongodb), the first: %s",
					p.Host, n, p.StartupWarnings[0]))
			}
		}
	}
	if len(warnings) > 0 {
		msg := tailDetail(strings.Join(warnings, "\n"))
		s.setCondition(benchv1.ConditionWarnings, metav1.ConditionTrue, benchv1.ReasonEnvironmentWarnings, msg)
		s.warnf(benchv1.ReasonEnvironmentWarnings, "%s", msg)
	} else {
		s.setCondition(benchv1.ConditionWarnings, metav1.ConditionFalse, benchv1.ReasonNoWarnings, "no environment warnings")
	}
	s.eventf(benchv1.EventEnvironment, "environment fingerprint %s (%s)", fp, placedOn(run))
	return true, r.labelFingerprint(ctx, run)
}

// labelFingerprint puts the fingerprint and the spec hash on the run's
// labels, so comparable runs can be selected (spec.compare.history). A label is metadata: it is patched apart from the
// status, and only when missing or different.
func (r *BenchmarkRunReconciler) labelFingerprint(ctx context.Context, run *benchv1.BenchmarkRun) error {
	fp := run.Status.Environment.Fingerprint
	hash, err := specHash(&run.Spec)
	if err != nil {
		return err
	}
	if run.Labels[benchv1.LabelFingerprint] == fp && run.Labels[benchv1.LabelSpecHash] == hash {
		return nil
	}
	patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:%q,%q:%q}}}`, benchv1.LabelFingerprint, fp, benchv1.LabelSpecHash, hash))
	obj := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: run.Name, Namespace: run.Namespace}}
	if err := r.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		return fmt.Errorf("label %s with its fingerprint: %w", run.Name, err)
	}
	return nil
}

func nodeEnvironment(n *corev1.Node) *benchv1.NodeEnvironment {
	info := n.Status.NodeInfo
	out := &benchv1.NodeEnvironment{
		Name:                    n.Name,
		KernelVersion:           info.KernelVersion,
		OSImage:                 info.OSImage,
		ContainerRuntimeVersion: info.ContainerRuntimeVersion,
		Architecture:            info.Architecture,
		InstanceType:            n.Labels[labelInstanceType],
		Zone:                    n.Labels[labelZone],
	}
	if q, ok := n.Status.Allocatable[corev1.ResourceCPU]; ok {
		out.AllocatableCPU = &q
	}
	if q, ok := n.Status.Allocatable[corev1.ResourceMemory]; ok {
		out.AllocatableMemory = &q
	}
	return out
}

// fingerprintFields are hashed for the fingerprint; see
// EnvironmentStatus.Fingerprint for what goes in and what stays out.
type fingerprintFields struct {
	ServerVersion string                       `json:"serverVersion"`
	Topology      benchv1.TopologySpec         `json:"topology"`
	Driver        benchv1.DriverSpec           `json:"driver"`
	RetryWrites   *bool                        `json:"retryWrites,omitempty"`
	Loaders       int32                        `json:"loaders"`
	LoaderPlace   benchv1.LoaderPlacement      `json:"loaderPlacement"`
	LoaderImage   string                       `json:"loaderImage"`
	DriverVersion string                       `json:"driverVersion,omitempty"`
	LoaderRes     *corev1.ResourceRequirements `json:"loaderResources,omitempty"`
	Node          *benchv1.NodeEnvironment     `json:"node,omitempty"`
	// Layout and Nodes are a Spread run's (spreadFingerprint); empty for
	// SameNode, so that its fingerprints stay what they were.
	Layout   string                        `json:"layout,omitempty"`
	Nodes    []benchv1.RoleNodeEnvironment `json:"nodes,omitempty"`
	Build    []string                      `json:"build,omitempty"`
	Phases   []benchv1.PhaseEnvironment    `json:"phases"`
	Security *securityFingerprint          `json:"security,omitempty"`
}

// securityFingerprint is what of spec.security sets runs apart. Left out
// (nil) when everything is off: a run without a NetworkPolicy is what
// every run was before spec.security existed, and keeps comparing with
// those runs' fingerprints; each field is omitted when off, so that a
// run without auth keeps the fingerprint it had before auth existed.
type securityFingerprint struct {
	NetworkPolicy bool `json:"networkPolicy,omitempty"`
	// Auth: access control costs a SCRAM handshake per new connection,
	// keyfile authentication between the processes, and an
	// authorization check on every command.
	Auth bool `json:"auth,omitempty"`
}

// fingerprint hashes what must match for two runs to be comparable.
func fingerprint(run *benchv1.BenchmarkRun, env *benchv1.EnvironmentStatus) (string, error) {
	f := fingerprintFields{
		Topology:      fingerprintTopology(run),
		Driver:        run.Spec.Driver,
		Loaders:       max(run.Spec.Loaders, 1),
		LoaderPlace:   run.Spec.Placement.LoaderPlacement,
		LoaderImage:   env.LoaderImage,
		DriverVersion: env.DriverVersion,
		LoaderRes:     run.Spec.LoaderResources,
	}
	// retryWrites reaches the loaders in mongodb.url, which is left out of
	// the phases below (it names the run's hosts): it goes in on its own,
	// and only where the driver uses it. Against a standalone the driver
	// never makes a write retryable (go.mongodb.org/mongo-driver/v2
	// x/mongo/driver/operation.go, retryWritesSupported: Kind !=
	// ServerKindStandalone), so there it does not set runs apart.
	f.Driver.RetryWrites = false
	// The oplog likewise: every member of a sharded topology or a replica
	// set has one of this size (topology.OplogSizeMB, the default when
	// unset), a standalone has none.
	f.Topology.OplogSizeMB = 0
	if run.Spec.Topology.Mode == benchv1.TopologySharded || run.Spec.Topology.Mode == benchv1.TopologyReplicaSet {
		f.RetryWrites = ptr.To(run.Spec.Driver.RetryWrites)
		f.Topology.OplogSizeMB = topology.OplogSizeMB(run)
	}
	// A ReplicaSet's members, unset or 3, are the same set; shards and
	// config servers of one member, said or not, are those of the runs
	// recorded before their members could be set (so their fingerprints
	// stay what they were).
	if run.Spec.Topology.Mode == benchv1.TopologyReplicaSet {
		f.Topology.Members = ptr.To(topology.Members(run))
	}
	f.Topology.ShardMembers, f.Topology.ConfigServerMembers = nil, nil
	if n := topology.ShardMembers(run); run.Spec.Topology.Mode == benchv1.TopologySharded && n != 1 {
		f.Topology.ShardMembers = ptr.To(n)
	}
	if n := topology.ConfigServerMembers(run); run.Spec.Topology.Mode == benchv1.TopologySharded && n != 1 {
		f.Topology.ConfigServerMembers = ptr.To(n)
	}
	// A NetworkPolicy is enforced per packet by the network plugin (with
	// kube-proxy-like rules or eBPF) on the node being measured: runs with
	// and without one are told apart, though the cost is usually small.
	// So are runs with and without access control (securityFingerprint).
	if sec := (securityFingerprint{NetworkPolicy: topology.NetworkPolicyEnabled(run), Auth: topology.AuthEnabled(run)}); sec != (securityFingerprint{}) {
		f.Security = &sec
	}
	// The server version is buildInfo's version, which the bootstrap
	// records twice from the same reply: status.environment.mongodb.version,
	// and status.topology.serverVersion, the only one of runs recorded
	// before the former existed. Preferring the environment's, and hashing
	// it in the same place, keeps those runs' fingerprints.
	if run.Status.Topology != nil {
		f.ServerVersion = run.Status.Topology.ServerVersion
	}
	if m := env.MongoDB; m != nil && m.Version != "" {
		f.ServerVersion = m.Version
	}
	if m := env.MongoDB; m != nil {
		f.Build = []string{m.GitVersion, m.Allocator, m.FeatureCompatibilityVersion, m.StorageEngine}
	}
	if env.Node != nil {
		n := *env.Node
		n.Name, n.Zone = "", ""
		f.Node = &n
	}
	if topology.Spread(run) {
		var err error
		if f.Layout, f.Nodes, err = spreadFingerprint(run, env.Nodes); err != nil {
			return "", err
		}
	}
	// Every value the phases' loaders run with (topology.PhaseProperties),
	// their threads and target included: runs at other thread counts, or a
	// throttled and an unthrottled run, never compare.
	for _, ph := range env.Phases {
		props := map[string]string{}
		for k, v := range ph.Properties {
			if !contract.RunNamedProperty(k) {
				props[k] = v
			}
		}
		f.Phases = append(f.Phases, benchv1.PhaseEnvironment{Name: ph.Name, Properties: props})
	}
	sort.Slice(f.Phases, func(i, j int) bool { return f.Phases[i].Name < f.Phases[j].Name })
	// encoding/json sorts map keys: the hash is stable.
	b, err := json.Marshal(f)
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "QoS unknown"
	}
	return s
}

// mongoDBEnvironment copies what the bootstrap Job read of the servers.
func mongoDBEnvironment(in *results.ServerEnvironment) *benchv1.MongoDBEnvironment {
	out := &benchv1.MongoDBEnvironment{Version: in.Version, GitVersion: in.GitVersion, Allocator: in.Allocator, OpenSSL: in.OpenSSL,
		FeatureCompatibilityVersion: in.FeatureCompatibilityVersion, StorageEngine: in.StorageEngine}
	for _, p := range in.Processes {
		out.Processes = append(out.Processes, benchv1.MongoDBProcessEnvironment{Host: p.Host, Options: p.Options,
			StartupWarnings: p.StartupWarnings, Unavailable: p.Unavailable})
	}
	return out
}
