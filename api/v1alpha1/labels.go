package v1alpha1

import "strings"

// The label keys (and the values of some) that mongobench puts on what it
// creates, defined once: the controller, the Job builders and the kubectl
// plugin select on these, and so may users and tools (kubectl get -l,
// dashboards, scripts), which can import this package. mongobench sets no
// annotations of its own. A test (labels_test.go) fails when a quoted
// bench.mongobench.io/ or app.kubernetes.io/ key appears in production Go
// code outside this file.
//
// One key lives elsewhere: bench.mongobench.io/loader-index, which the
// loader puts on each result ConfigMap, is internal/contract's
// LabelLoaderIndex, because the loader binary does not import this package
// (it would bring in k8s.io/api and apimachinery, which
// test/loader's TestNoKubernetesClientInTheLoader keeps out).
//
// The controller selects a run's objects by the bench.mongobench.io
// labels, which it owns; the app.kubernetes.io labels are for people and
// tools, and for the manager's cache, which sees only objects managed by
// mongobench (ManagedBy).

// Kubernetes' recommended labels, on every object of a run and on a
// sweep's child runs.
const (
	// LabelName is app.kubernetes.io/name, valued AppName.
	LabelName = "app.kubernetes.io/name"
	// LabelInstance is app.kubernetes.io/instance: the run's name.
	LabelInstance = "app.kubernetes.io/instance"
	// LabelComponent is app.kubernetes.io/component: a process role
	// (standalone, configsvr, shard, mongos) or one of the Component*
	// values.
	LabelComponent = "app.kubernetes.io/component"
	// LabelManagedBy is app.kubernetes.io/managed-by, valued ManagedBy.
	LabelManagedBy = "app.kubernetes.io/managed-by"

	// AppName is the value of LabelName.
	AppName = "mongobench"
	// ManagedBy is the value of LabelManagedBy on every object of a run;
	// the manager's cache only sees objects carrying it.
	ManagedBy = "mongobench"
)

// Components (LabelComponent) of a run's objects that are not MongoDB
// processes.
const (
	ComponentLoader    = "loader"
	ComponentBootstrap = "bootstrap"
	ComponentValidator = "validator"
	// ComponentDropDatabase labels the Job that drops an External run's
	// own database at cleanup.
	ComponentDropDatabase = "dropdatabase"
	ComponentNetwork      = "network"
	ComponentRBAC         = "rbac"
	// ComponentAuth labels the Secrets of a run with security.auth: its
	// keyfile and its users' passwords.
	ComponentAuth = "auth"
	// ComponentDiagnostics labels the ConfigMap of a run's diagnostics.
	ComponentDiagnostics = "diagnostics"
	// ComponentTelemetry labels the ConfigMaps of a run's server telemetry.
	ComponentTelemetry = "telemetry"
	// ComponentHistograms labels the ConfigMaps of a run's merged phase
	// results.
	ComponentHistograms = "histograms"
)

// Labels of a run's objects (pods, volumes, Services, Jobs, ConfigMaps).
const (
	// LabelRun names the run an object belongs to.
	LabelRun = "bench.mongobench.io/run"
	// LabelRunUID carries the run's UID: run names repeat across
	// namespaces (and over time), so exclusive placement tells runs apart
	// by it.
	LabelRunUID = "bench.mongobench.io/run-uid"
	// LabelRole is a MongoDB process's role (ProcessRole).
	LabelRole = "bench.mongobench.io/role"
	// LabelDatabase is "true" on every MongoDB process's pod and volume.
	LabelDatabase = "bench.mongobench.io/database"
	// LabelDataBearing is "true" on the pod and volume of every mongod
	// that holds the benchmark's data (the standalone, each shard's
	// members), not on mongos or the config server: a Spread run keeps
	// the pods carrying it apart.
	LabelDataBearing = "bench.mongobench.io/data-bearing"
	// LabelPlacementRetry is set on a Spread run's pod that waits for a
	// node busy with other runs, valued with a hash of those runs' pods:
	// the controller changes it when they change, and the change of its
	// own labels makes the scheduler try the pod again at once.
	LabelPlacementRetry = "bench.mongobench.io/placement-retry"
	// LabelPhase names the benchmark phase (spec.phases[].name, in lower
	// case) of a loader Job and of a phase's telemetry and histogram
	// ConfigMaps.
	LabelPhase = "bench.mongobench.io/phase"
)

// PhaseLabelValue is how a phase's name (spec.phases[].name) is written in
// LabelPhase and in the live metrics' phase label: in lower case, so that
// the loaders' metrics, the manager's and a phase's objects join on it.
func PhaseLabelValue(phase string) string { return strings.ToLower(phase) }

// Labels of runs.
const (
	// LabelFingerprint labels a run with its environment fingerprint, so
	// that comparable runs can be selected: kubectl get benchmarkruns -l
	// bench.mongobench.io/fingerprint=<value>.
	LabelFingerprint = "bench.mongobench.io/fingerprint"
	// LabelSpecHash is the label the controller puts on every run with a
	// hash of what it measures (the spec without compare, cleanup, timeout
	// and validity): with the fingerprint label it selects a run's
	// comparable history.
	LabelSpecHash = "bench.mongobench.io/spec-hash"

	// LabelSweep names the sweep that owns a run.
	LabelSweep = "bench.mongobench.io/sweep"
	// LabelCell is a sweep's child run's cell index.
	LabelCell = "bench.mongobench.io/cell"
	// LabelRepetition is a sweep's child run's repetition, from 1.
	LabelRepetition = "bench.mongobench.io/repetition"
	// LabelAxisPrefix prefixes one label per axis on a sweep's child run,
	// valued with the run's value of that axis:
	// axis.bench.mongobench.io/<axis>=<value>.
	LabelAxisPrefix = "axis.bench.mongobench.io/"
)

// Labels of sweeps.
const (
	// LabelSeries groups recurring sweeps into a series for historyLimit.
	LabelSeries = "bench.mongobench.io/series"
)
