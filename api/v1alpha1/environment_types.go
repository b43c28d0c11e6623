package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// EnvironmentStatus records what a run's numbers came from: the node, the
// Kubernetes and mongobench versions, the database pods' QoS, and the
// exact YCSB properties of each phase. It is recorded once, when the
// topology is ready.
type EnvironmentStatus struct {
	// Fingerprint is a stable hash (16 hex digits of SHA-256) over what
	// must match for two runs to be comparable: the MongoDB server version
	// (buildInfo's version, mongodb.version), build (mongodb.gitVersion,
	// allocator, featureCompatibilityVersion and storageEngine) and image,
	// the driver version, the topology (mode, shards, shard key, WiredTiger
	// cache, storage, resources, env, and the oplog size of a sharded run:
	// a standalone has no oplog), the driver settings (write concern,
	// journal, read preference, pool size, and retryWrites of a sharded
	// run: the driver ignores it against a standalone) and loaders, the
	// node's kernel, OS image, container runtime, architecture, instance
	// type and allocatable CPU and memory, the loader image, every
	// phase's YCSB properties (without mongodb.url, which names this run's
	// hosts), and spec.security (a NetworkPolicy, access control: each
	// when it is on). Run names, namespaces, node names, zones and times
	// are left out. The same value labels the run
	// (bench.mongobench.io/fingerprint).
	// +optional
	Fingerprint string `json:"fingerprint,omitempty"`

	// KubernetesVersion is the API server's version (gitVersion).
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`

	// ManagerVersion is the mongobench manager's version.
	// +optional
	ManagerVersion string `json:"managerVersion,omitempty"`

	// LoaderImage ran the run's Jobs.
	// +optional
	LoaderImage string `json:"loaderImage,omitempty"`

	// DriverVersion is the MongoDB Go driver's version the loader is built
	// with (the manager and the loader share one go.mod).
	// +optional
	DriverVersion string `json:"driverVersion,omitempty"`

	// Node describes the node every database pod runs on (layout
	// SameNode).
	// +optional
	Node *NodeEnvironment `json:"node,omitempty"`

	// Nodes describes every node the database pods of a Spread run use,
	// with the roles it holds, sorted by role then node name.
	// +listType=atomic
	// +optional
	Nodes []RoleNodeEnvironment `json:"nodes,omitempty"`

	// DatabasePods lists each MongoDB pod's QoS class. A pod that is not
	// Guaranteed may be CPU-throttled, which skews the numbers: the
	// Warnings condition says so.
	// +listType=map
	// +listMapKey=pod
	// +optional
	DatabasePods []PodEnvironment `json:"databasePods,omitempty"`

	// MongoDB is what the servers say about themselves, read by the
	// bootstrap Job.
	// +optional
	MongoDB *MongoDBEnvironment `json:"mongodb,omitempty"`

	// Phases holds the exact YCSB properties each phase's loaders are
	// given (with -P workload<preset> as "workload").
	// +listType=map
	// +listMapKey=name
	// +optional
	Phases []PhaseEnvironment `json:"phases,omitempty"`
}

// NodeEnvironment is what the Node object says about the benchmark node.
type NodeEnvironment struct {
	// Name of the node (not part of the fingerprint).
	Name string `json:"name"`
	// +optional
	KernelVersion string `json:"kernelVersion,omitempty"`
	// +optional
	OSImage string `json:"osImage,omitempty"`
	// +optional
	ContainerRuntimeVersion string `json:"containerRuntimeVersion,omitempty"`
	// +optional
	Architecture string `json:"architecture,omitempty"`
	// InstanceType is the node.kubernetes.io/instance-type label.
	// +optional
	InstanceType string `json:"instanceType,omitempty"`
	// Zone is the topology.kubernetes.io/zone label (not part of the
	// fingerprint).
	// +optional
	Zone string `json:"zone,omitempty"`
	// AllocatableCPU and AllocatableMemory are the node's allocatable
	// resources.
	// +optional
	AllocatableCPU *resource.Quantity `json:"allocatableCPU,omitempty"`
	// +optional
	AllocatableMemory *resource.Quantity `json:"allocatableMemory,omitempty"`
}

// RoleNodeEnvironment is a node of a Spread run and the roles of the
// database pods on it.
type RoleNodeEnvironment struct {
	// Roles of the database pods on the node, sorted.
	Roles []ProcessRole `json:"roles"`

	NodeEnvironment `json:",inline"`
}

// PodEnvironment is one database pod's QoS class.
type PodEnvironment struct {
	Pod  string      `json:"pod"`
	Role ProcessRole `json:"role"`
	// QOSClass is Guaranteed, Burstable or BestEffort.
	QOSClass corev1.PodQOSClass `json:"qosClass"`
}

// PhaseEnvironment is the YCSB property set of one phase.
type PhaseEnvironment struct {
	Name string `json:"name"`
	// Properties are every value the phase's loaders run with, as given to
	// each of them: the -p properties, "workload" for -P, and threadcount
	// and target for -threads and -target (YCSB's names for what those
	// flags set; target 0 is unthrottled).
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
}

// MongoDBEnvironment is what the MongoDB servers say about themselves, as
// far as they answered: buildInfo of the entry point, the
// featureCompatibilityVersion of a data-bearing mongod, and each process's
// parsed options and startup warnings. The startup warnings are how THP,
// ulimit and filesystem problems show without access to the host: any of
// them sets the Warnings condition.
type MongoDBEnvironment struct {
	// Version is buildInfo's version: the release, e.g. "8.0.16".
	// +optional
	Version string `json:"version,omitempty"`
	// GitVersion is buildInfo's gitVersion: the commit the server was
	// built from.
	// +optional
	GitVersion string `json:"gitVersion,omitempty"`
	// Allocator is tcmalloc or tcmalloc-google (per-CPU caches).
	// +optional
	Allocator string `json:"allocator,omitempty"`
	// +optional
	OpenSSL string `json:"openssl,omitempty"`
	// +optional
	FeatureCompatibilityVersion string `json:"featureCompatibilityVersion,omitempty"`
	// StorageEngine is serverStatus.storageEngine.name (wiredTiger,
	// inMemory).
	// +optional
	StorageEngine string `json:"storageEngine,omitempty"`
	// +listType=map
	// +listMapKey=host
	// +optional
	Processes []MongoDBProcessEnvironment `json:"processes,omitempty"`
}

// MongoDBProcessEnvironment is one process's options and startup warnings.
type MongoDBProcessEnvironment struct {
	Host string `json:"host"`
	// Options is getCmdLineOpts' parsed document (extended JSON).
	// +optional
	Options string `json:"options,omitempty"`
	// StartupWarnings are getLog startupWarnings' lines.
	// +optional
	StartupWarnings []string `json:"startupWarnings,omitempty"`
	// Unavailable says what the process did not answer, and why.
	// +optional
	Unavailable []string `json:"unavailable,omitempty"`
}
