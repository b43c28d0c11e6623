package topology

import (
	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// The label keys and values are benchv1's (api/v1alpha1/labels.go).

// RunLabels are the labels every object of a run carries.
func RunLabels(run *benchv1.BenchmarkRun, component string) map[string]string {
	return map[string]string{
		benchv1.LabelName:      benchv1.AppName,
		benchv1.LabelInstance:  run.Name,
		benchv1.LabelComponent: component,
		benchv1.LabelManagedBy: benchv1.ManagedBy,
		benchv1.LabelRun:       run.Name,
		benchv1.LabelRunUID:    string(run.UID),
	}
}

// PhaseLabels are the labels of an object of one benchmark phase (its
// loader Job, its telemetry and histograms ConfigMaps): the run's, and
// LabelPhase with the phase's name in lower case, the same for each so
// that one selector finds them all.
func PhaseLabels(run *benchv1.BenchmarkRun, component, phase string) map[string]string {
	l := RunLabels(run, component)
	l[benchv1.LabelPhase] = benchv1.PhaseLabelValue(phase)
	return l
}

// ProcessLabels are the labels of a MongoDB process's pod and volume.
func ProcessLabels(run *benchv1.BenchmarkRun, p Process) map[string]string {
	l := RunLabels(run, string(p.Role))
	l[benchv1.LabelRole] = string(p.Role)
	l[benchv1.LabelDatabase] = "true"
	if DataBearing(p) {
		l[benchv1.LabelDataBearing] = "true"
	}
	return l
}

// DatabaseSelector selects every MongoDB pod of a run.
func DatabaseSelector(run *benchv1.BenchmarkRun) map[string]string {
	return map[string]string{benchv1.LabelRun: run.Name, benchv1.LabelDatabase: "true"}
}

// EntrySelector selects the pod the entry Service points at.
func EntrySelector(run *benchv1.BenchmarkRun) map[string]string {
	role := benchv1.RoleStandalone
	switch run.Spec.Topology.Mode {
	case benchv1.TopologySharded:
		role = benchv1.RoleMongos
	case benchv1.TopologyReplicaSet:
		// Every member: the Service is the entry for telemetry's
		// collection statistics and status.topology.entryPoint, which
		// any member answers; the loaders connect with the members' own
		// names and replicaSet (MongoURL), so that the driver follows
		// the primary.
		role = benchv1.RoleMember
	}
	return map[string]string{benchv1.LabelRun: run.Name, benchv1.LabelRole: string(role)}
}
