package topology

import (
	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// Label keys. Selectors use only the bench.mongobench.io labels, which the
// controller owns; the app.kubernetes.io labels are for people and tools.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelComponent = "app.kubernetes.io/component"
	LabelManagedBy = "app.kubernetes.io/managed-by"

	LabelRun = "bench.mongobench.io/run"
	// LabelRunUID carries the run's UID: run names repeat across
	// namespaces (and over time), so exclusive placement tells runs apart
	// by it.
	LabelRunUID   = "bench.mongobench.io/run-uid"
	LabelRole     = "bench.mongobench.io/role"
	LabelDatabase = "bench.mongobench.io/database"
	LabelPhase    = "bench.mongobench.io/phase"

	// ManagedBy is the value of app.kubernetes.io/managed-by on every object
	// of a run; the manager's cache only sees objects carrying it.
	ManagedBy = "mongobench"
	// AppName is the value of app.kubernetes.io/name.
	AppName = "mongobench"
)

// Components (app.kubernetes.io/component) of the objects that are not
// MongoDB processes.
const (
	ComponentLoader    = "loader"
	ComponentBootstrap = "bootstrap"
	ComponentValidator = "validator"
	ComponentNetwork   = "network"
	ComponentRBAC      = "rbac"
	// ComponentDiagnostics labels the ConfigMap of a run's diagnostics.
	ComponentDiagnostics = "diagnostics"
	// ComponentTelemetry labels the ConfigMaps of a run's server telemetry.
	ComponentTelemetry = "telemetry"
	// ComponentHistograms labels the ConfigMaps of a run's merged phase
	// results.
	ComponentHistograms = "histograms"
)

// RunLabels are the labels every object of a run carries.
func RunLabels(run *benchv1.BenchmarkRun, component string) map[string]string {
	return map[string]string{
		LabelName:      AppName,
		LabelInstance:  run.Name,
		LabelComponent: component,
		LabelManagedBy: ManagedBy,
		LabelRun:       run.Name,
		LabelRunUID:    string(run.UID),
	}
}

// ProcessLabels are the labels of a MongoDB process's pod and volume.
func ProcessLabels(run *benchv1.BenchmarkRun, p Process) map[string]string {
	l := RunLabels(run, string(p.Role))
	l[LabelRole] = string(p.Role)
	l[LabelDatabase] = "true"
	return l
}

// DatabaseSelector selects every MongoDB pod of a run.
func DatabaseSelector(run *benchv1.BenchmarkRun) map[string]string {
	return map[string]string{LabelRun: run.Name, LabelDatabase: "true"}
}

// EntrySelector selects the pod the entry Service points at.
func EntrySelector(run *benchv1.BenchmarkRun) map[string]string {
	role := benchv1.RoleStandalone
	if run.Spec.Topology.Mode == benchv1.TopologySharded {
		role = benchv1.RoleMongos
	}
	return map[string]string{LabelRun: run.Name, LabelRole: string(role)}
}
