package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The write-concern rule of BenchmarkRunSpec (its last XValidation): w must
// not exceed the data-bearing members of a replica set. A replica set fails
// every such write with UnsatisfiableWriteConcern "Not enough data-bearing
// nodes" (mongodb/mongo src/mongo/db/repl/repl_set_config.cpp,
// ReplSetConfig::checkIfWriteConcernCanBeSatisfied), which the loader counts
// as lost writes; a standalone takes w 0, 1 and majority and refuses w 2
// (mongodb/mongo jstests, the standalone write_concern test); mongos passes
// w on to each shard. The bound is 1 for a standalone and the members of
// each shard for Sharded (topology.shardMembers, 1 when unset), and
// topology.members for ReplicaSet, 3 when unset (DefaultMembers and
// DefaultShardMembers in internal/topology, tied to this rule by tests).
//
// The read-concern rule (after it): mongod refuses readConcern snapshot
// unless it is a replica-set member, with NotAReplicaSet "node needs to be
// a replica set member to use readConcern: snapshot" (mongodb/mongo
// src/mongo/db/read_concern_mongod.cpp, waitForReadConcernImpl); majority
// and local a standalone takes (the majority branch there applies to
// replica sets only).
//
// The op-mix rule's messageExpression names the first Run phase whose
// proportions do not sum to 1, and their sum as the rule rounds it: the
// fix is then obvious. It recomputes the sum (CEL has no way to pass a
// value from rule to message) and builds the text with format(): the
// API server's cost estimate of string(double) + ... has no bound, and
// of join() over the phases too, either of which gets the CRD refused
// (estimated messageExpression cost exceeds budget); format()'s, in the
// version of cel-go's strings library Kubernetes enables (2, since
// 1.29), stays within it. Should a release estimate it higher, every
// envtest suite fails at once: they install this CRD.

// BenchmarkRunSpec defines one benchmark: a MongoDB topology on one node, a
// YCSB workload, and the phases to run against it.
//
// +kubebuilder:validation:XValidation:rule="self.phases[0].type == 'Load' || self.phases[0].type == 'Grow'",message="the first phase must be a Load phase: the topology starts empty"
// +kubebuilder:validation:XValidation:rule="self.phases[0].type == 'Grow' || self.phases.filter(p, p.type == 'Load').size() == 1",message="only one Load phase is allowed (the first): loading the same keys twice fails with duplicate keys"
// +kubebuilder:validation:XValidation:rule="!self.phases.exists(p, p.type == 'Grow') || size(self.phases) == 1",message="a run with a Grow phase has no other phase: the growth study's collection is not YCSB's"
// +kubebuilder:validation:XValidation:rule="!self.phases.exists(p, p.type == 'Grow') || self.loaders == 1",message="a Grow phase runs in one loader pod (loaders: 1); grow.insertThreads and grow.queryThreads set its concurrency"
// +kubebuilder:validation:XValidation:rule="!self.phases.exists(p, p.type == 'Grow') || self.topology.mode != 'Sharded' || !has(self.topology.shardKey) || self.topology.shardKey == 'Hashed'",message="a Grow run shards on hashed _id: its ranged pre-split is made from YCSB's keys, which a Grow run does not insert"
// +kubebuilder:validation:XValidation:rule="!self.phases.exists(p, p.type == 'Grow') || !has(self.collection)",message="collection (a validator applied after the Load phase) does not apply to a Grow run"
// +kubebuilder:validation:XValidation:rule="self.phases.all(p, self.phases.filter(q, q.name.lowerAscii() == p.name.lowerAscii()).size() == 1)",message="phase names must be unique, ignoring case (they name the phase's Job)"
// +kubebuilder:validation:XValidation:rule="self.phases.all(p, !(p.name.lowerAscii() in ['bootstrap', 'validator', 'diagnostics']))",message="phase names bootstrap, validator and diagnostics are reserved: they would collide with the run's own Jobs and ConfigMaps (<run>-bootstrap, <run>-validator, <run>-diagnostics)"
// +kubebuilder:validation:XValidation:rule="self.phases.all(p, !(p.name.lowerAscii() == 'telemetry' || p.name.lowerAscii().startsWith('telemetry-')))",message="phase names telemetry and telemetry-* are reserved: their Jobs' result ConfigMaps would collide with the phases' telemetry ConfigMaps (<run>-telemetry-<phase>)"
// +kubebuilder:validation:XValidation:rule="self.phases.all(p, p.type != 'Run' || int(((has(p.workload) && has(p.workload.readProportion) ? p.workload.readProportion : (has(self.workload.readProportion) ? self.workload.readProportion : {'none': 0.95, 'a': 0.5, 'b': 0.95, 'c': 1.0, 'd': 0.95, 'e': 0.0, 'f': 0.5}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.updateProportion) ? p.workload.updateProportion : (has(self.workload.updateProportion) ? self.workload.updateProportion : {'none': 0.05, 'a': 0.5, 'b': 0.05, 'c': 0.0, 'd': 0.0, 'e': 0.0, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.insertProportion) ? p.workload.insertProportion : (has(self.workload.insertProportion) ? self.workload.insertProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.05, 'e': 0.05, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.scanProportion) ? p.workload.scanProportion : (has(self.workload.scanProportion) ? self.workload.scanProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.0, 'e': 0.95, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.readModifyWriteProportion) ? p.workload.readModifyWriteProportion : (has(self.workload.readModifyWriteProportion) ? self.workload.readModifyWriteProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.0, 'e': 0.0, 'f': 0.5}[has(self.workload.preset) ? self.workload.preset : 'none']))) * 1000000.0 + 0.5) == 1000000)",messageExpression="'in every Run phase, readProportion + updateProportion + insertProportion + scanProportion + readModifyWriteProportion must sum to 1 after applying the preset, spec.workload and the workload overrides of the phase: %s'.format([self.phases.filter(p, p.type == 'Run' && int(((has(p.workload) && has(p.workload.readProportion) ? p.workload.readProportion : (has(self.workload.readProportion) ? self.workload.readProportion : {'none': 0.95, 'a': 0.5, 'b': 0.95, 'c': 1.0, 'd': 0.95, 'e': 0.0, 'f': 0.5}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.updateProportion) ? p.workload.updateProportion : (has(self.workload.updateProportion) ? self.workload.updateProportion : {'none': 0.05, 'a': 0.5, 'b': 0.05, 'c': 0.0, 'd': 0.0, 'e': 0.0, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.insertProportion) ? p.workload.insertProportion : (has(self.workload.insertProportion) ? self.workload.insertProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.05, 'e': 0.05, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.scanProportion) ? p.workload.scanProportion : (has(self.workload.scanProportion) ? self.workload.scanProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.0, 'e': 0.95, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.readModifyWriteProportion) ? p.workload.readModifyWriteProportion : (has(self.workload.readModifyWriteProportion) ? self.workload.readModifyWriteProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.0, 'e': 0.0, 'f': 0.5}[has(self.workload.preset) ? self.workload.preset : 'none']))) * 1000000.0 + 0.5) != 1000000).map(p, 'phase %s sums to %s'.format([p.name, double(int(((has(p.workload) && has(p.workload.readProportion) ? p.workload.readProportion : (has(self.workload.readProportion) ? self.workload.readProportion : {'none': 0.95, 'a': 0.5, 'b': 0.95, 'c': 1.0, 'd': 0.95, 'e': 0.0, 'f': 0.5}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.updateProportion) ? p.workload.updateProportion : (has(self.workload.updateProportion) ? self.workload.updateProportion : {'none': 0.05, 'a': 0.5, 'b': 0.05, 'c': 0.0, 'd': 0.0, 'e': 0.0, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.insertProportion) ? p.workload.insertProportion : (has(self.workload.insertProportion) ? self.workload.insertProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.05, 'e': 0.05, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.scanProportion) ? p.workload.scanProportion : (has(self.workload.scanProportion) ? self.workload.scanProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.0, 'e': 0.95, 'f': 0.0}[has(self.workload.preset) ? self.workload.preset : 'none'])) + (has(p.workload) && has(p.workload.readModifyWriteProportion) ? p.workload.readModifyWriteProportion : (has(self.workload.readModifyWriteProportion) ? self.workload.readModifyWriteProportion : {'none': 0.0, 'a': 0.0, 'b': 0.0, 'c': 0.0, 'd': 0.0, 'e': 0.0, 'f': 0.5}[has(self.workload.preset) ? self.workload.preset : 'none']))) * 1000000.0 + 0.5)) / 1000000.0]))[0]])"
// +kubebuilder:validation:XValidation:rule="self.phases.all(p, p.type != 'Run' || has(p.maxExecutionTime) || (has(p.workload) && has(p.workload.operationCount) ? p.workload.operationCount : has(self.workload.operationCount) ? self.workload.operationCount : 1000) > 0)",message="a Run phase with operationCount 0 (unlimited) needs maxExecutionTime, or it never ends"
// +kubebuilder:validation:XValidation:rule="self.phases.all(p, p.type != 'Load' || !has(p.warmup) || !has(p.warmup.operations) || p.warmup.operations * 2 <= (has(self.workload.recordCount) ? self.workload.recordCount : 1000))",message="a Load phase's warmup.operations may be at most half of recordCount: the warm-up inserts are records of the data set, the rest is the measurement"
// +kubebuilder:validation:XValidation:rule="self.phases.all(p, !has(p.warmup) || !has(p.warmup.operations) || p.warmup.operations >= self.loaders)",message="warmup.operations is the total over all loaders: it must be at least loaders, so that every loader warms up"
// +kubebuilder:validation:XValidation:rule="!has(self.compare) || self.compare.metrics.all(m, m.metric != 'intendedP99' || self.phases.exists(p, p.name == m.phase && (has(p.measurement) && has(p.measurement.interval) ? p.measurement.interval : (has(self.measurement.interval) ? self.measurement.interval : 'op')) != 'op'))",message="an intendedP99 metric needs its phase measured with measurement.interval intended or both"
// +kubebuilder:validation:XValidation:rule="!has(self.compare) || self.compare.metrics.all(m, !(m.metric in ['unavailabilityWrites', 'unavailabilityReads']) || self.phases.exists(p, p.name == m.phase && has(p.disruptions) && size(p.disruptions) > 0))",message="an unavailabilityWrites or unavailabilityReads metric needs its phase to have disruptions"
// +kubebuilder:validation:XValidation:rule="!has(self.compare) || !has(self.compare.baseline.sweepRef) || (has(self.compare.baseline.sweepRef.cell) && size(self.compare.baseline.sweepRef.cell) > 0)",message="a run's compare.baseline.sweepRef must name a cell"
// +kubebuilder:validation:XValidation:rule="!has(self.driver) || !has(self.driver.writeConcern) || self.topology.mode == 'External' || !self.driver.writeConcern.matches('^[0-9]{1,2}$') || int(self.driver.writeConcern) <= (self.topology.mode == 'ReplicaSet' ? (has(self.topology.members) ? self.topology.members : 3) : self.topology.mode == 'Sharded' && has(self.topology.shardMembers) ? self.topology.shardMembers : 1)",messageExpression="'driver.writeConcern ' + self.driver.writeConcern + ' asks for more members than ' + (self.topology.mode == 'Sharded' ? (has(self.topology.shardMembers) && self.topology.shardMembers > 1 ? 'each shard (topology.shardMembers)' : 'each shard (a one-member replica set)') : self.topology.mode == 'ReplicaSet' ? 'the replica set (topology.members)' : 'a standalone') + ' has: use ' + (self.topology.mode == 'ReplicaSet' ? 'at most topology.members, or majority' : self.topology.mode == 'Sharded' && has(self.topology.shardMembers) && self.topology.shardMembers > 1 ? 'at most topology.shardMembers, or majority' : '0, 1 or majority') + '; the server would fail every write (Not enough data-bearing nodes)'"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'External' || !has(self.security) || !has(self.security.auth) || !self.security.auth",message="security.auth turns on access control in the MongoDB mongobench deploys: with mode External the cluster's own users apply (put the credentials in external.uriSecretRef's connection string)"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'External' || !has(self.placement.layout) || self.placement.layout == 'SameNode'",message="placement.layout Spread places the database pods mongobench deploys: with mode External there are none"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'External' || !has(self.placement.loaderPlacement) || self.placement.loaderPlacement != 'SameNode'",message="placement.loaderPlacement SameNode puts the loaders on the node of the database pods mongobench deploys: with mode External there are none; use PreferOtherNode or AnyNode"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'External' || (!has(self.placement.nodeName) && (!has(self.placement.nodeSelector) || size(self.placement.nodeSelector) == 0))",message="placement.nodeName and nodeSelector choose the node of the database pods mongobench deploys: with mode External there are none (loaderPlacement AnyNode places the loaders anywhere)"
// +kubebuilder:validation:XValidation:rule="!has(self.driver) || !has(self.driver.readConcern) || self.driver.readConcern != 'snapshot' || self.topology.mode != 'Standalone'",message="driver.readConcern snapshot needs a replica set: a standalone mongod refuses it (node needs to be a replica set member to use readConcern: snapshot); use ReplicaSet, Sharded, or local or majority"
// +kubebuilder:validation:XValidation:rule="self.topology.mode in ['ReplicaSet', 'Sharded'] || (self.topology.mode == 'External' && has(self.topology.external) && has(self.topology.external.allowDisruptingExternal) && self.topology.external.allowDisruptingExternal) || self.phases.all(p, !has(p.disruptions) || size(p.disruptions) == 0)",messageExpression="self.topology.mode == 'Standalone' ? 'disruptions need a replica set: a Standalone has no primary to step down' : 'disruptions of an External cluster hit every client of a cluster mongobench does not own: set topology.external.allowDisruptingExternal: true to allow them (StepDown only; see docs/disruptions.md)'"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'External' || self.phases.all(p, !has(p.disruptions) || p.disruptions.all(d, d.action == 'StepDown'))",message="an External cluster takes StepDown only: its pods are not mongobench's to delete"
// +kubebuilder:validation:XValidation:rule="self.topology.mode == 'Sharded' || self.phases.all(p, !has(p.disruptions) || p.disruptions.all(d, d.action != 'KillMongos'))",message="KillMongos needs a Sharded topology: only it has a mongos"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'Sharded' || self.phases.all(p, !has(p.disruptions) || p.disruptions.all(d, d.action == 'KillMongos' || has(d.target)))",message="on a Sharded topology, StepDown, KillPrimary, RestartMember and Pause need a target: a shard's index (0 to topology.shards - 1) or configServer"
// +kubebuilder:validation:XValidation:rule="self.topology.mode == 'Sharded' || self.phases.all(p, !has(p.disruptions) || p.disruptions.all(d, !has(d.target)))",message="target picks a shard or the config server of a Sharded topology: a ReplicaSet's disruptions hit its one replica set"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'Sharded' || self.phases.all(p, !has(p.disruptions) || p.disruptions.all(d, !has(d.target) || type(d.target) != int || int(d.target) < (has(self.topology.shards) ? self.topology.shards : 1)))",message="a disruption's target shard must be below topology.shards: shards are numbered from 0"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'ReplicaSet' || self.phases.all(p, !has(p.disruptions) || size(p.disruptions) == 0) || (has(self.topology.members) ? self.topology.members : 3) >= 2",message="disruptions need a replica set of at least 2 members (topology.members): with one there is no secondary to elect"
// +kubebuilder:validation:XValidation:rule="self.topology.mode != 'Sharded' || self.phases.all(p, !has(p.disruptions) || p.disruptions.all(d, !(d.action == 'StepDown' || (has(d.member) && type(d.member) == string && string(d.member) == 'secondary')) || (self.topology.mode == 'Sharded' ? (has(d.target) && type(d.target) == string ? (has(self.topology.configServerMembers) ? self.topology.configServerMembers : 1) : (has(self.topology.shardMembers) ? self.topology.shardMembers : 1)) : (has(self.topology.members) ? self.topology.members : 3)) >= 2))",message="a StepDown, or a RestartMember of a secondary, needs its target replica set to have at least 2 members (topology.shardMembers or topology.configServerMembers, default 1): with one there is no secondary"
// +kubebuilder:validation:XValidation:rule="self.phases.all(p, !has(p.disruptions) || p.disruptions.all(d, !has(d.member) || type(d.member) != int || int(d.member) < (self.topology.mode == 'Sharded' ? (has(d.target) && type(d.target) == string ? (has(self.topology.configServerMembers) ? self.topology.configServerMembers : 1) : (has(self.topology.shardMembers) ? self.topology.shardMembers : 1)) : (has(self.topology.members) ? self.topology.members : 3))))",message="a RestartMember's member index must be below the members of its replica set: topology.members (default 3), or on a Sharded topology topology.shardMembers or topology.configServerMembers (default 1); members are numbered from 0"
type BenchmarkRunSpec struct {
	// Topology is the MongoDB deployment under test: a standalone mongod,
	// or co-located micro-shards (one-member replica sets) behind a mongos
	// and a config server. Every process runs on the same node.
	Topology TopologySpec `json:"topology"`

	// Placement decides where the database and loader pods run.
	// +kubebuilder:default={}
	// +optional
	Placement PlacementSpec `json:"placement,omitempty"`

	// Workload holds the YCSB CoreWorkload properties shared by all phases.
	// +kubebuilder:default={}
	// +optional
	Workload WorkloadSpec `json:"workload,omitempty"`

	// Phases run in order against the same data set. The first must be the
	// Load phase. Default: a Load phase "load" then a Run phase "run".
	// +kubebuilder:default={{name: "load", type: "Load"}, {name: "run", type: "Run"}}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=name
	// +optional
	Phases []PhaseSpec `json:"phases,omitempty"`

	// Loaders is the number of parallel loader pods per phase; threads are
	// per pod. The load phase's key range is split between them.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Loaders int32 `json:"loaders,omitempty"`

	// Target throttles every phase to this many operations per second across
	// all loaders (YCSB's target); 0 means unthrottled. A phase may override it.
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +optional
	Target int64 `json:"target,omitempty"`

	// Driver configures the MongoDB driver of the loaders.
	// +kubebuilder:default={}
	// +optional
	Driver DriverSpec `json:"driver,omitempty"`

	// Measurement says what latency every phase reports; a phase may
	// override it.
	// +optional
	Measurement MeasurementSpec `json:"measurement,omitempty"`

	// Validity sets the thresholds of the checks that decide, when the
	// run ends, whether it measured the database (the Valid condition).
	// +kubebuilder:default={}
	// +optional
	Validity ValiditySpec `json:"validity,omitempty"`

	// Collection optionally applies a schema validator to the benchmark
	// collection after the Load phase and before the first Run phase, to
	// measure validation overhead.
	// +optional
	Collection *CollectionSpec `json:"collection,omitempty"`

	// Cleanup decides what happens to the database pods, Services, volumes
	// and finished Jobs when the run ends. Results stay in status either way.
	// +kubebuilder:default=Delete
	// +optional
	Cleanup CleanupPolicy `json:"cleanup,omitempty"`

	// Timeout bounds the whole run, provisioning included; when it passes
	// the run fails.
	// +kubebuilder:default="2h"
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="timeout must be greater than zero"
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// LoaderResources are the compute resources of each loader container.
	// +optional
	LoaderResources *corev1.ResourceRequirements `json:"loaderResources,omitempty"`

	// Telemetry samples the MongoDB processes while each phase runs
	// (serverStatus of every process, the benchmark collection's storage
	// statistics), from loader 0 of the phase. On by default.
	// +kubebuilder:default={}
	// +optional
	Telemetry TelemetrySpec `json:"telemetry,omitempty"`

	// Compare makes the run a regression gate: once it succeeded, its
	// metrics are compared with a baseline run, a sweep's cell or the
	// history of comparable runs; status.comparison and the Regressed
	// condition hold the verdicts.
	// +optional
	Compare *CompareSpec `json:"compare,omitempty"`

	// Security decides who may talk to the run's MongoDB processes: by
	// default a NetworkPolicy admits only the run's own pods; auth makes
	// every client authenticate. It is part of the environment's
	// fingerprint, not of the spec hash.
	// +kubebuilder:default={}
	// +optional
	Security *SecuritySpec `json:"security,omitempty"`
}

// TelemetrySpec configures server telemetry: what mongostat would show of
// every MongoDB process (standalone, shards, config server, mongos) during
// each phase, sampled by the phase's loader 0, and the benchmark
// collection's count and sizes at the end of each phase (and every 10 s
// during the Load phase). Sampling never fails a phase.
type TelemetrySpec struct {
	// Enabled turns sampling on (the default) or off.
	// +kubebuilder:default=true
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// Interval between two serverStatus samples of each process.
	// +kubebuilder:default="1s"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('1m')",message="telemetry.interval must be between 1s and 1m"
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`
}

// TopologyMode is the shape of the deployment under test.
// +kubebuilder:validation:Enum=Standalone;Sharded;ReplicaSet;External
// +kubebuilder:validation:MaxLength=10
type TopologyMode string

// Topology modes.
const (
	// TopologyStandalone is a single mongod (no replica set, no oplog).
	TopologyStandalone TopologyMode = "Standalone"
	// TopologySharded is a config server, N shards (each a one-member
	// replica set) and one mongos, all on one node.
	TopologySharded TopologyMode = "Sharded"
	// TopologyReplicaSet is one replica set of topology.members members
	// (default 3), each a mongod in a pod of its own, all on one node.
	// With members: 1 it is a standalone with an oplog: the like-with-like
	// baseline of the one-member shards of Sharded.
	TopologyReplicaSet TopologyMode = "ReplicaSet"
	// TopologyExternal is a MongoDB that mongobench did not deploy (an
	// operator's, or a hosted one), reached through the connection string
	// in topology.external.uriSecretRef: the run provisions nothing.
	TopologyExternal TopologyMode = "External"
)

// ShardKey is the shard key of the benchmark collection, always on _id.
// +kubebuilder:validation:Enum=Hashed;Ranged
// +kubebuilder:validation:MaxLength=6
type ShardKey string

// Shard keys.
const (
	ShardKeyHashed ShardKey = "Hashed"
	ShardKeyRanged ShardKey = "Ranged"
)

// StorageMedium is where mongod keeps its data files.
// +kubebuilder:validation:Enum=Disk;Memory;PersistentVolume
// +kubebuilder:validation:MaxLength=16
type StorageMedium string

// Storage media.
const (
	// StorageDisk is an emptyDir on the node's disk.
	StorageDisk StorageMedium = "Disk"
	// StorageMemory is an emptyDir in tmpfs; it counts against the pod's
	// memory limit.
	StorageMemory StorageMedium = "Memory"
	// StoragePersistentVolume is a PersistentVolumeClaim per mongod.
	StoragePersistentVolume StorageMedium = "PersistentVolume"
)

// TopologySpec describes the MongoDB processes of a run. Every process runs
// on the same node.
//
// +kubebuilder:validation:XValidation:rule="self.mode != 'Sharded' || has(self.shards)",message="shards is required when mode is Sharded"
// +kubebuilder:validation:XValidation:rule="self.mode == 'Sharded' || !has(self.shards)",message="shards can only be set when mode is Sharded"
// +kubebuilder:validation:XValidation:rule="self.mode == 'Sharded' || self.mode == 'External' || !has(self.shardKey)",message="shardKey can only be set when mode is Sharded or External"
// +kubebuilder:validation:XValidation:rule="(self.mode == 'External') == has(self.external)",message="external is required when mode is External, and only allowed then"
// +kubebuilder:validation:XValidation:rule="self.mode != 'External' || !has(self.env)",message="env sets the environment of the MongoDB containers mongobench deploys: with mode External there are none"
// +kubebuilder:validation:XValidation:rule="self.mode == 'Sharded' || (!has(self.mongosResources) && !has(self.configServerResources))",message="mongosResources and configServerResources can only be set when mode is Sharded"
// +kubebuilder:validation:XValidation:rule="self.mode == 'ReplicaSet' || !has(self.members)",message="members can only be set when mode is ReplicaSet"
// +kubebuilder:validation:XValidation:rule="self.mode == 'Sharded' || (!has(self.shardMembers) && !has(self.configServerMembers))",message="shardMembers and configServerMembers can only be set when mode is Sharded"
type TopologySpec struct {
	// Mode is Standalone (one mongod), Sharded (micro-shards behind
	// mongos) or ReplicaSet (one replica set of topology.members members).
	Mode TopologyMode `json:"mode"`

	// Members is the number of members of the ReplicaSet topology's
	// replica set, each a data-bearing mongod with its own pod, volume and
	// topology.resources (default 3). Only allowed when mode is
	// ReplicaSet. The bootstrap initiates the set with every member and
	// waits for one PRIMARY and every other member SECONDARY. With 1, the
	// set is a standalone with an oplog.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=7
	// +optional
	Members *int32 `json:"members,omitempty"`

	// Shards is the number of co-located micro-shards, each a replica set
	// of shardMembers members (one by default). Required (and only
	// allowed) when mode is Sharded.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	// +optional
	Shards *int32 `json:"shards,omitempty"`

	// ShardMembers is the members of each shard's replica set (1–7,
	// default 1: the one-member micro-shards of the micro-sharding study).
	// Member 0 of shard i is Pod <run>-shard<i>, member m >= 1
	// <run>-shard<i>-<m>; each is a data-bearing mongod with its own
	// volume, oplog and topology.resources. Sharded only.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=7
	// +optional
	ShardMembers *int32 `json:"shardMembers,omitempty"`

	// ConfigServerMembers is the members of the config server's replica
	// set: 1 (the default) or 3. Member 0 is Pod <run>-cfg, the others
	// <run>-cfg-1 and <run>-cfg-2; each gets configServerResources.
	// Sharded only.
	// +kubebuilder:validation:Enum=1;3
	// +optional
	ConfigServerMembers *int32 `json:"configServerMembers,omitempty"`

	// Image is the MongoDB image used for mongod, mongos and the config
	// server. Pin a version: results are only comparable on the same one.
	// +kubebuilder:default="mongo:8.0.16"
	// +kubebuilder:validation:MinLength=1
	// +optional
	Image string `json:"image,omitempty"`

	// ImagePullPolicy of the MongoDB containers.
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	// +optional
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// WiredTigerCacheSizeGB is the WiredTiger cache of each data-bearing
	// mongod, in GB (decimal allowed, e.g. "0.5"). Always passed explicitly:
	// the default (half of the node's RAM) would be claimed by every mongod
	// on the node.
	// +kubebuilder:default="1"
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	// +kubebuilder:validation:MaxLength=10
	// +kubebuilder:validation:XValidation:rule="double(self) >= 0.25 && double(self) <= 10000.0",message="wiredTigerCacheSizeGB must be between 0.25 and 10000: mongod refuses to start with any other value"
	// +optional
	WiredTigerCacheSizeGB string `json:"wiredTigerCacheSizeGB,omitempty"`

	// Env adds environment variables to every MongoDB container (mongod,
	// mongos, config server), e.g. allocator or glibc tunables. For images
	// of MongoDB 8.0 and later mongobench sets
	// GLIBC_TUNABLES=glibc.pthread.rseq=0 (TCMalloc's per-CPU caches need
	// rseq, which glibc otherwise holds); a GLIBC_TUNABLES here replaces it.
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=name
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`

	// Resources of each data-bearing mongod (the standalone or each shard).
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// MongosResources of the mongos router (Sharded only).
	// +optional
	MongosResources *corev1.ResourceRequirements `json:"mongosResources,omitempty"`

	// ConfigServerResources of the config server (Sharded only).
	// +optional
	ConfigServerResources *corev1.ResourceRequirements `json:"configServerResources,omitempty"`

	// Storage of each data-bearing mongod.
	// +kubebuilder:default={}
	// +optional
	Storage StorageSpec `json:"storage,omitempty"`

	// OplogSizeMB is the oplog of every replica-set member, each shard and
	// the config server, in MiB (mongod's --oplogSize; default 1024).
	// Without it mongod sizes each oplog at 5% of the free space of the
	// filesystem holding its data, between 990 MB and 50 GB: on a Disk
	// emptyDir that is the node's disk, so the oplog would change with the
	// node and could outgrow the volume. Each shard's volume is
	// storage.size plus this; the config server's is this plus 2 GiB. A
	// standalone has no replica set, hence no oplog, and ignores it. The
	// oplog's size decides when mongod starts truncating it and how much
	// of the disk a run writes: it is part of the fingerprint of a sharded
	// run. 990 is the smallest size replSetResizeOplog accepts.
	// +kubebuilder:default=1024
	// +kubebuilder:validation:Minimum=990
	// +kubebuilder:validation:Maximum=1048576
	// +optional
	OplogSizeMB int32 `json:"oplogSizeMB,omitempty"`

	// ShardKey of the benchmark collection, on _id: Hashed spreads inserts
	// over all shards, Ranged keeps key order. Sharded, or External when
	// the cluster it reaches is sharded and external.shardCollection is
	// true; default Hashed.
	// +optional
	ShardKey ShardKey `json:"shardKey,omitempty"`

	// External is the MongoDB you already run (mode External only): where
	// its connection string is, and how the run may use it. The run
	// deploys nothing, so image, wiredTigerCacheSizeGB, oplogSizeMB,
	// storage and resources (whose defaults the API server fills in) are
	// ignored.
	// +optional
	External *ExternalSpec `json:"external,omitempty"`
}

// SecretKeyRef names a key of a Secret in the run's namespace.
type SecretKeyRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key in the Secret's data.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// SecretRef names a Secret in the run's namespace.
type SecretRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ExternalSpec is a MongoDB that mongobench did not deploy. Credentials
// stay in the user's Secrets: every Job reads them from there (environment
// or mounted files), and they never appear in the run's status, events,
// Job arguments, diagnostics or reports.
type ExternalSpec struct {
	// URISecretRef is the key of a Secret holding the connection string
	// (mongodb:// or mongodb+srv://, with credentials) every Job connects
	// with, e.g. the MongoDB Community operator's
	// <resource>-<db>-<user> Secret, key connectionString.standard.
	URISecretRef SecretKeyRef `json:"uriSecretRef"`

	// MonitorURISecretRef is the connection string telemetry samples the
	// servers with, for a user with role clusterMonitor. Without it
	// telemetry uses uriSecretRef's.
	// +optional
	MonitorURISecretRef *SecretKeyRef `json:"monitorURISecretRef,omitempty"`

	// TLS files the Jobs connect with, mounted read-only from Secrets.
	// +optional
	TLS *ExternalTLSSpec `json:"tls,omitempty"`

	// Database is the run's own database: the only one it writes to, and
	// the one cleanup drops (only when the run created it). Default
	// mongobench_<run name> (dots as underscores, at most 63 characters).
	// Letters, digits, _ and - only: a subset of what MongoDB's naming
	// restrictions allow on every platform (docs/manual/reference/limits,
	// "Naming Restrictions": not empty, fewer than 64 characters, none of
	// / \ . space " $ * < > : | ? or the null character on Windows, the
	// strictest list), and safe in a Kubernetes label and a Job argument.
	// admin, local and config are MongoDB's own databases.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]+$`
	// +kubebuilder:validation:XValidation:rule="!(self.lowerAscii() in ['admin', 'local', 'config'])",message="database must not be admin, local or config: they are MongoDB's own"
	// +optional
	Database string `json:"database,omitempty"`

	// AllowExistingData lets the run use a database that already holds
	// collections (default false: such a run fails with TargetNotEmpty
	// before it writes anything). Cleanup never drops a database the run
	// did not create, whatever this says.
	// +kubebuilder:default=false
	// +optional
	AllowExistingData bool `json:"allowExistingData,omitempty"`

	// ShardCollection shards the benchmark collection (on topology.shardKey,
	// default Hashed) when the cluster is sharded (default true). The
	// balancer and everything else cluster-wide are left as they are.
	// +kubebuilder:default=true
	// +optional
	ShardCollection *bool `json:"shardCollection,omitempty"`

	// AllowDisruptingExternal lets the phases' disruptions act on this
	// cluster (default false: the API refuses them). StepDown only: loader
	// 0 sends replSetStepDown to the primary of the replica set the
	// connection string reaches, as its user, who needs the
	// replSetStateChange action (role clusterManager, or root). Every
	// client of the cluster, not only the benchmark, then loses its
	// primary for seconds: never set it for a cluster that serves anything
	// else (docs/disruptions.md, "Risks").
	// +optional
	AllowDisruptingExternal bool `json:"allowDisruptingExternal,omitempty"`
}

// ExternalTLSSpec is the TLS material of an External cluster.
type ExternalTLSSpec struct {
	// CASecretRef is a Secret key holding the PEM CA certificates the
	// servers' certificates chain to. A CA the MongoDB Community operator
	// keeps in a ConfigMap must be copied into a Secret (docs).
	// +optional
	CASecretRef *SecretKeyRef `json:"caSecretRef,omitempty"`
	// ClientCertSecretRef is a kubernetes.io/tls Secret (tls.crt, tls.key)
	// for clusters that require a client certificate.
	// +optional
	ClientCertSecretRef *SecretRef `json:"clientCertSecretRef,omitempty"`
}

// StorageSpec is the data volume of each data-bearing mongod.
//
// +kubebuilder:validation:XValidation:rule="self.medium == 'PersistentVolume' || !has(self.storageClassName)",message="storageClassName can only be set when medium is PersistentVolume"
type StorageSpec struct {
	// Medium is Disk (emptyDir), Memory (emptyDir on tmpfs) or
	// PersistentVolume (a PersistentVolumeClaim per mongod).
	// +kubebuilder:default=Disk
	// +optional
	Medium StorageMedium `json:"medium,omitempty"`

	// Size is the room for the data of each data-bearing mongod: the
	// emptyDir size limit or the claim's requested size of a standalone.
	// A shard's volume also holds its oplog: it is this plus
	// topology.oplogSizeMB.
	// +kubebuilder:default="10Gi"
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="storage size must be greater than zero"
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`

	// StorageClassName of the claims (PersistentVolume only); empty means
	// the cluster's default class.
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`
}

// LoaderPlacement decides where loader pods run relative to the database node.
// +kubebuilder:validation:Enum=PreferOtherNode;SameNode;AnyNode
// +kubebuilder:validation:MaxLength=16
type LoaderPlacement string

// Loader placements.
const (
	// LoaderPreferOtherNode keeps loaders off the database node when another
	// node can take them (preferred anti-affinity), so single-node clusters
	// still work.
	LoaderPreferOtherNode LoaderPlacement = "PreferOtherNode"
	// LoaderSameNode puts loaders on the database node.
	LoaderSameNode LoaderPlacement = "SameNode"
	// LoaderAnyNode leaves loader placement to the scheduler.
	LoaderAnyNode LoaderPlacement = "AnyNode"
)

// PlacementSpec decides where the run's database pods go: all on one node
// (layout SameNode), or each data-bearing mongod on its own (Spread).
//
// +kubebuilder:validation:XValidation:rule="!has(self.nodeName) || !has(self.nodeSelector) || size(self.nodeSelector) == 0",message="set either nodeName or nodeSelector, not both"
// +kubebuilder:validation:XValidation:rule="!has(self.spreadTopologyKey) || (has(self.layout) && self.layout == 'Spread')",message="spreadTopologyKey can only be set when layout is Spread"
// +kubebuilder:validation:XValidation:rule="!has(self.nodeName) || !has(self.layout) || self.layout != 'Spread'",message="nodeName names one node for every database pod: it cannot be set when layout is Spread (use nodeSelector to choose the nodes)"
type PlacementSpec struct {
	// NodeName names the node for every database pod. The pods still go
	// through the scheduler (a kubernetes.io/hostname selector), so resource
	// fit is checked.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	NodeName string `json:"nodeName,omitempty"`

	// NodeSelector chooses the node of the first database pod; every other
	// database pod follows it to the same node.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations of the database pods.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// LoaderPlacement is PreferOtherNode (default), SameNode or AnyNode.
	// +kubebuilder:default=PreferOtherNode
	// +optional
	LoaderPlacement LoaderPlacement `json:"loaderPlacement,omitempty"`

	// Layout is SameNode (default: every database pod on one node) or
	// Spread (each data-bearing mongod — the standalone, or each shard's —
	// on a node of its own, by required anti-affinity among the run's
	// data-bearing pods; mongos and the config server go where they fit).
	// +kubebuilder:default=SameNode
	// +optional
	Layout PlacementLayout `json:"layout,omitempty"`

	// SpreadTopologyKey is the node label whose values the data-bearing
	// mongods of a Spread run must not share: kubernetes.io/hostname (the
	// default) puts each on its own node, topology.kubernetes.io/zone in
	// its own zone. Only with layout Spread.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`
	// +optional
	SpreadTopologyKey string `json:"spreadTopologyKey,omitempty"`

	// Exclusive keeps other benchmarks off the run's node (default true):
	// the run's database pods are not placed on a node where another run's
	// database pods or loaders are active, and while they run, no other
	// run's pods are placed there. A run waiting for a free node stays
	// Pending (reason WaitingForNode), bounded by spec.timeout. Two
	// benchmarks sharing a node measure each other, not MongoDB.
	// +kubebuilder:default=true
	// +optional
	Exclusive *bool `json:"exclusive,omitempty"`
}

// PlacementLayout is how a run's database pods spread over nodes.
// +kubebuilder:validation:Enum=SameNode;Spread
// +kubebuilder:validation:MaxLength=8
type PlacementLayout string

// Placement layouts.
const (
	// LayoutSameNode puts every database pod of the run on one node.
	LayoutSameNode PlacementLayout = "SameNode"
	// LayoutSpread puts each data-bearing mongod on a node (or in a
	// spreadTopologyKey domain) of its own.
	LayoutSpread PlacementLayout = "Spread"
)

// WorkloadPreset is one of YCSB's standard workloads.
// +kubebuilder:validation:Enum=a;b;c;d;e;f
// +kubebuilder:validation:MaxLength=1
type WorkloadPreset string

// RequestDistribution is YCSB's requestdistribution.
// +kubebuilder:validation:Enum=uniform;zipfian;latest;hotspot;sequential;exponential
// +kubebuilder:validation:MaxLength=11
type RequestDistribution string

// InsertOrder is YCSB's insertorder.
// +kubebuilder:validation:Enum=hashed;ordered
// +kubebuilder:validation:MaxLength=7
type InsertOrder string

// WorkloadSpec is a YCSB CoreWorkload: a preset as the base, explicit fields
// overriding it. Field names are YCSB's property names in camelCase.
type WorkloadSpec struct {
	// Preset is a YCSB standard workload (a..f) used as the base; without
	// it, YCSB CoreWorkload's own defaults apply (95% read, 5% update,
	// uniform).
	// +optional
	Preset WorkloadPreset `json:"preset,omitempty"`

	// RecordCount is YCSB's recordcount: records loaded by the Load phase
	// and the key space of Run phases. Default: the preset's, and 1000
	// without a preset (YCSB's own default, 0, would load nothing).
	// +kubebuilder:validation:Minimum=1
	// +optional
	RecordCount *int64 `json:"recordCount,omitempty"`

	// FieldCount is YCSB's fieldcount (default 10).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	// +optional
	FieldCount *int32 `json:"fieldCount,omitempty"`

	// FieldLength is YCSB's fieldlength in bytes (default 100).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1048576
	// +optional
	FieldLength *int32 `json:"fieldLength,omitempty"`

	// InsertOrder is YCSB's insertorder: hashed (default) or ordered keys.
	// +optional
	InsertOrder InsertOrder `json:"insertOrder,omitempty"`

	// ZeroPadding is YCSB's zeropadding of key numbers (default 1).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	// +optional
	ZeroPadding *int32 `json:"zeroPadding,omitempty"`

	WorkloadParameters `json:",inline"`
}

// WorkloadParameters are the workload properties a Run phase may override.
type WorkloadParameters struct {
	// OperationCount is YCSB's operationcount for a Run phase, across all
	// loaders (default: the preset's, and 1000 without a preset). 0 means
	// unlimited, which requires the phase's maxExecutionTime.
	// +kubebuilder:validation:Minimum=0
	// +optional
	OperationCount *int64 `json:"operationCount,omitempty"`

	// ReadProportion is YCSB's readproportion.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	ReadProportion *float64 `json:"readProportion,omitempty"`

	// UpdateProportion is YCSB's updateproportion.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	UpdateProportion *float64 `json:"updateProportion,omitempty"`

	// InsertProportion is YCSB's insertproportion.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	InsertProportion *float64 `json:"insertProportion,omitempty"`

	// ScanProportion is YCSB's scanproportion.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	ScanProportion *float64 `json:"scanProportion,omitempty"`

	// ReadModifyWriteProportion is YCSB's readmodifywriteproportion.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	ReadModifyWriteProportion *float64 `json:"readModifyWriteProportion,omitempty"`

	// RequestDistribution is YCSB's requestdistribution: uniform, zipfian,
	// latest, hotspot, sequential or exponential.
	// +optional
	RequestDistribution RequestDistribution `json:"requestDistribution,omitempty"`

	// ReadAllFields is YCSB's readallfields (default true).
	// +optional
	ReadAllFields *bool `json:"readAllFields,omitempty"`

	// WriteAllFields is YCSB's writeallfields (default false).
	// +optional
	WriteAllFields *bool `json:"writeAllFields,omitempty"`

	// Properties are any other YCSB CoreWorkload properties, passed to the
	// loader verbatim: maxscanlength, minscanlength, scanlengthdistribution,
	// hotspotdatafraction, hotspotopnfraction, fieldlengthdistribution,
	// exponential.percentile, dataintegrity, ... Properties that have a field
	// (recordcount, readproportion, ...) or that mongobench manages
	// (mongodb.url, threadcount, target, batchsize, ...) are rejected, so
	// every value that shapes the run is validated in one place.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="!['mongodb.url', 'mongodb.writeConcern', 'mongodb.readPreference', 'mongodb.maxconnections', 'mongodb.upsert', 'db', 'table', 'threadcount', 'target', 'maxexecutiontime', 'batchsize', 'insertstart', 'insertcount', 'status.interval', 'measurementtype', 'measurement.interval', 'warmuptime', 'warmupoperations', 'exporter', 'exportfile', 'loader.index', 'loader.count', 'loader.insertkeyoffset', 'workload', 'recordcount', 'operationcount', 'fieldcount', 'fieldlength', 'insertorder', 'zeropadding', 'readproportion', 'updateproportion', 'insertproportion', 'scanproportion', 'readmodifywriteproportion', 'requestdistribution', 'readallfields', 'writeallfields'].exists(k, k in self)",messageExpression="'properties must not set ' + ['mongodb.url', 'mongodb.writeConcern', 'mongodb.readPreference', 'mongodb.maxconnections', 'mongodb.upsert', 'db', 'table', 'threadcount', 'target', 'maxexecutiontime', 'batchsize', 'insertstart', 'insertcount', 'status.interval', 'measurementtype', 'measurement.interval', 'warmuptime', 'warmupoperations', 'exporter', 'exportfile', 'loader.index', 'loader.count', 'loader.insertkeyoffset', 'workload', 'recordcount', 'operationcount', 'fieldcount', 'fieldlength', 'insertorder', 'zeropadding', 'readproportion', 'updateproportion', 'insertproportion', 'scanproportion', 'readmodifywriteproportion', 'requestdistribution', 'readallfields', 'writeallfields'].filter(k, k in self)[0] + ': mongobench manages it, or it has its own field (workload, phase, driver or spec)'"
	// +kubebuilder:validation:XValidation:rule="['minscanlength', 'maxscanlength'].all(k, !(k in self) || self[k].matches('^[1-9][0-9]{0,8}$'))",message="minscanlength and maxscanlength must be whole numbers of at least 1"
	// +kubebuilder:validation:XValidation:rule="['hotspotdatafraction', 'hotspotopnfraction'].all(k, !(k in self) || self[k].matches('^(0([.][0-9]+)?|1([.]0+)?|[.][0-9]+)$'))",message="hotspotdatafraction and hotspotopnfraction must be numbers between 0 and 1"
	// +kubebuilder:validation:XValidation:rule="!('scanlengthdistribution' in self) || self['scanlengthdistribution'] in ['uniform', 'zipfian']",message="scanlengthdistribution must be uniform or zipfian"
	// +kubebuilder:validation:XValidation:rule="!('fieldlengthdistribution' in self) || self['fieldlengthdistribution'] in ['constant', 'uniform', 'zipfian']",message="fieldlengthdistribution must be constant, uniform or zipfian (histogram needs a file the loader cannot see)"
	// +kubebuilder:validation:XValidation:rule="!('minscanlength' in self && 'maxscanlength' in self) || !self['minscanlength'].matches('^[0-9]{1,9}$') || !self['maxscanlength'].matches('^[0-9]{1,9}$') || int(self['minscanlength']) <= int(self['maxscanlength'])",message="minscanlength must not exceed maxscanlength"
	// +optional
	Properties map[string]PropertyValue `json:"properties,omitempty"`
}

// PropertyValue is the value of a YCSB property, as YCSB reads it (text).
// +kubebuilder:validation:MaxLength=1024
type PropertyValue string

// PhaseType is Load (YCSB load: insert recordCount records), Run (YCSB
// run: the operation mix) or Grow (the data-growth study: inserts with
// indexed queries at checkpoints, spec.phases[].grow).
// +kubebuilder:validation:Enum=Load;Run;Grow
// +kubebuilder:validation:MaxLength=4
type PhaseType string

// Phase types.
const (
	PhaseLoad PhaseType = "Load"
	PhaseRun  PhaseType = "Run"
	PhaseGrow PhaseType = "Grow"
)

// PhaseSpec is one YCSB invocation (load or run) against the run's data set.
//
// +kubebuilder:validation:XValidation:rule="self.type == 'Run' || !has(self.workload)",message="workload overrides are only allowed on Run phases"
// +kubebuilder:validation:XValidation:rule="self.type == 'Grow' ? has(self.grow) : !has(self.grow)",message="grow is required on a Grow phase and only allowed there"
// +kubebuilder:validation:XValidation:rule="self.type != 'Grow' || (!has(self.batchSize) && !has(self.target) && !has(self.maxExecutionTime))",message="a Grow phase sets its inserts in grow (grow.batchSize); batchSize, target and maxExecutionTime are YCSB's"
// +kubebuilder:validation:XValidation:rule="self.type != 'Grow' || (!has(self.warmup) && !has(self.measurement))",message="warmup and measurement are YCSB's (Load and Run phases); a Grow phase measures its inserts and queries per checkpoint"
// +kubebuilder:validation:XValidation:rule="self.type != 'Grow' || !has(self.disruptions)",message="disruptions are for Load and Run phases: a Grow phase's loader measures per checkpoint"
// +kubebuilder:validation:XValidation:rule="!has(self.disruptions) || !has(self.maxExecutionTime) || self.disruptions.all(d, duration(d.at) < duration(self.maxExecutionTime))",messageExpression="'a disruption at or after maxExecutionTime (' + self.maxExecutionTime + ') never happens: the phase stops then; every disruptions[].at must be shorter'"
// +kubebuilder:validation:XValidation:rule="!has(self.disruptions) || !has(self.warmup) || !has(self.warmup.operations)",message="disruptions need the measured window to start at one instant in every loader: use warmup.duration, not warmup.operations (each loader ends a warm-up by operations on its own)"
type PhaseSpec struct {
	// Name of the phase, unique within the run; it names the phase's Job.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$`
	Name string `json:"name"`

	// Type is Load, Run or Grow.
	Type PhaseType `json:"type"`

	// Threads per loader pod (YCSB's threadcount).
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	// +optional
	Threads int32 `json:"threads,omitempty"`

	// BatchSize is YCSB's batchsize: inserts are sent in insertMany batches
	// of this size (default 1: one insertOne per record).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	BatchSize *int32 `json:"batchSize,omitempty"`

	// Target overrides spec.target for this phase (operations per second
	// across all loaders, 0 = unthrottled).
	// +kubebuilder:validation:Minimum=0
	// +optional
	Target *int64 `json:"target,omitempty"`

	// MaxExecutionTime stops the phase after this long (YCSB's
	// maxexecutiontime); the operations done until then are the result.
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="maxExecutionTime must be at least 1s"
	// +optional
	MaxExecutionTime *metav1.Duration `json:"maxExecutionTime,omitempty"`

	// Workload overrides spec.workload for this Run phase.
	// +optional
	Workload *WorkloadParameters `json:"workload,omitempty"`

	// Grow is the data-growth study of a Grow phase (required there). Its
	// loader's concurrency is grow.insertThreads and grow.queryThreads;
	// threads does not apply.
	// +optional
	Grow *GrowSpec `json:"grow,omitempty"`

	// Warmup starts the phase with a warm-up: its operations run like the
	// rest (same threads, same target) but are measured apart, reported
	// as the phase's warmup, and counted in neither its operations nor
	// its throughput or percentiles. The measured window, and
	// maxExecutionTime, start when it ends. In a Load phase the warm-up
	// inserts are records of the data set (at most half of them); in a
	// Run phase they come on top of operationCount. Not for Grow phases.
	// +optional
	Warmup *WarmupSpec `json:"warmup,omitempty"`

	// Measurement overrides spec.measurement for this phase.
	// +optional
	Measurement *MeasurementSpec `json:"measurement,omitempty"`

	// Disruptions are faults injected into the phase under load, each at
	// an instant of its measured window, and measured with its own
	// histograms (status.results[].disruptions): StepDown, KillPrimary,
	// RestartMember. A ReplicaSet of at least two members only, for now.
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	// +optional
	Disruptions []Disruption `json:"disruptions,omitempty"`
}

// WarmupSpec is a phase's warm-up: a duration, or a number of operations.
//
// +kubebuilder:validation:XValidation:rule="has(self.duration) != has(self.operations)",message="warmup takes either duration or operations"
type WarmupSpec struct {
	// Duration of the warm-up, from the moment every loader started.
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('24h')",message="warmup.duration must be between 1s and 24h"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`

	// Operations of the warm-up, the total over all loaders (each does
	// its share); it ends, in each loader, when its threads together did
	// their share (plus the operations already under way then).
	// +kubebuilder:validation:Minimum=1
	// +optional
	Operations *int64 `json:"operations,omitempty"`
}

// ValiditySpec are the thresholds of the run's validity checks. The other
// checks have none: a process restart, a primary change, a WiredTiger
// cache of another size than configured, or a process out of connections
// always make a run invalid.
type ValiditySpec struct {
	// MaxErrorPercent is the share of a phase's operations that may fail,
	// in %, before the run is invalid (TooManyErrors).
	// +kubebuilder:default=0.1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxErrorPercent *float64 `json:"maxErrorPercent,omitempty"`

	// MaxLoaderCPUPercent is the share of the CPU it may use (its CPU
	// limit, else its node's CPUs) that a loader may use over a phase's
	// measured window, in %, before the run is invalid (LoaderSaturated).
	// +kubebuilder:default=90
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxLoaderCPUPercent *float64 `json:"maxLoaderCPUPercent,omitempty"`

	// MaxLoaderThrottledPercent is the share of the CFS periods of a
	// phase's measured window in which a loader's CPU quota may throttle
	// it, in %, before the run is invalid (LoaderSaturated).
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MaxLoaderThrottledPercent *float64 `json:"maxLoaderThrottledPercent,omitempty"`
}

// MeasurementInterval is YCSB's measurement.interval: op, intended or both.
// +kubebuilder:validation:Enum=op;intended;both
// +kubebuilder:validation:MaxLength=8
type MeasurementInterval string

// Measurement intervals.
const (
	// MeasureOp measures each call's service time, from the call to its
	// return (YCSB's default).
	MeasureOp MeasurementInterval = "op"
	// MeasureIntended measures, under a target, each operation's
	// intended latency: from the moment the throttle meant it to start to
	// its end, so that a stall that delays the following operations
	// counts against them (coordinated omission). The status keeps the
	// service times too; YCSB's text report shows the intended latencies.
	MeasureIntended MeasurementInterval = "intended"
	// MeasureBoth measures both; the text report shows both (YCSB's
	// "[Intended-<OP>]" blocks after the others).
	MeasureBoth MeasurementInterval = "both"
)

// MeasurementSpec says what latency is measured.
type MeasurementSpec struct {
	// Interval is YCSB's measurement.interval: op (the default), intended
	// or both. Intended latencies differ from service times only under a
	// target (without one, an operation's intended start is its start).
	// With intended or both, each phase's status adds intendedP99Micros
	// and each operation's intended percentiles.
	// +optional
	Interval MeasurementInterval `json:"interval,omitempty"`
}

// DriverSpec configures the loaders' MongoDB driver.
//
// +kubebuilder:validation:XValidation:rule="!(self.writeConcern == '0' && has(self.journal) && self.journal)",message="journal: true needs an acknowledged write concern (writeConcern other than 0)"
type DriverSpec struct {
	// WriteConcern is the w of every write: a number of members or
	// "majority" (default "1", acknowledged). It may not exceed the
	// data-bearing members of a replica set: a standalone and one-member
	// shards take 0, 1 or majority, a ReplicaSet up to topology.members,
	// shards up to topology.shardMembers.
	// +kubebuilder:default="1"
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:Pattern=`^(majority|[0-9]{1,2})$`
	// +optional
	WriteConcern string `json:"writeConcern,omitempty"`

	// Journal requests journal acknowledgement (j: true) of every write.
	// +optional
	Journal *bool `json:"journal,omitempty"`

	// ReadConcern is the read concern level of every read (YCSB's reads
	// and scans are finds; a Grow phase's counts are aggregates): local,
	// majority or snapshot. Unset,
	// the driver sends none and the server applies its default (local).
	// snapshot needs a replica set (ReplicaSet or Sharded): outside
	// transactions a server takes it on find, aggregate and distinct
	// only, which are the reads the loaders make; writes carry no read
	// concern.
	// +kubebuilder:validation:Enum=local;majority;snapshot
	// +optional
	ReadConcern string `json:"readConcern,omitempty"`

	// ReadPreference of reads (default primary).
	// +kubebuilder:default=primary
	// +kubebuilder:validation:Enum=primary;primaryPreferred;secondary;secondaryPreferred;nearest
	// +optional
	ReadPreference string `json:"readPreference,omitempty"`

	// MaxPoolSize is the driver's connection pool size per loader pod;
	// unset keeps the driver's default (100), 0 is an unbounded pool (a
	// connection per thread, MongoDB's maxPoolSize=0). Threads beyond it
	// wait for a connection.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	MaxPoolSize *int32 `json:"maxPoolSize,omitempty"`

	// RetryWrites turns on the driver's retryable writes (default false).
	// The Go driver turns them on by default, and only against replica
	// sets and mongos: every sharded insert, update and insertMany then
	// carries a session and a transaction number that each shard records
	// in config.transactions, while a standalone's writes never do. Off,
	// standalone and sharded runs do the same work per write and compare
	// fairly; on, sharded writes pay for that bookkeeping (a standalone
	// ignores it). Part of the fingerprint for sharded runs.
	// +kubebuilder:default=false
	// +optional
	RetryWrites bool `json:"retryWrites,omitempty"`
}

// CollectionSpec configures the benchmark collection after loading.
type CollectionSpec struct {
	// Validator is a MongoDB validator document, e.g.
	// {$jsonSchema: {bsonType: object, required: [field0]}}, applied with
	// collMod after the Load phase.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Validator runtime.RawExtension `json:"validator"`

	// ValidationLevel is MongoDB's validationLevel (default strict).
	// +kubebuilder:default=strict
	// +kubebuilder:validation:Enum=off;strict;moderate
	// +optional
	ValidationLevel string `json:"validationLevel,omitempty"`

	// ValidationAction is MongoDB's validationAction (default error).
	// +kubebuilder:default=error
	// +kubebuilder:validation:Enum=error;warn;errorAndLog
	// +optional
	ValidationAction string `json:"validationAction,omitempty"`
}

// CleanupPolicy decides what is deleted when a run ends.
// +kubebuilder:validation:Enum=Delete;Retain;RetainOnFailure
// +kubebuilder:validation:MaxLength=15
type CleanupPolicy string

// Cleanup policies.
const (
	// CleanupDelete removes database pods, Services, volumes and finished
	// Jobs; the BenchmarkRun keeps its results.
	CleanupDelete CleanupPolicy = "Delete"
	// CleanupRetain keeps everything for inspection.
	CleanupRetain CleanupPolicy = "Retain"
	// CleanupRetainOnFailure keeps a failed run's objects and deletes a
	// successful run's.
	CleanupRetainOnFailure CleanupPolicy = "RetainOnFailure"
)
