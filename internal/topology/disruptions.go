package topology

import (
	"k8s.io/apimachinery/pkg/util/intstr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// A phase's disruptions (spec.phases[].disruptions) are the loaders' to run
// and measure: every loader of the phase's Job gets every disruption, with
// the API's defaults applied here, so that the loader never guesses them.
// Loader 0 acts (a MongoDB command; for a pod deletion, the request the
// controller carries out) and keeps an exactly-once ledger per disruption
// in a ConfigMap (contract.DisruptionLedgerName).

// Disruptions are a phase's disruptions as the loaders receive them
// (contract.Disruption), defaults applied, and for a Sharded topology the
// replica set each hits with its members' addresses; none for a Grow
// phase, which the API refuses them on.
func Disruptions(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) []contract.Disruption {
	if phase.Type == benchv1.PhaseGrow {
		return nil
	}
	out := make([]contract.Disruption, 0, len(phase.Disruptions))
	for i := range phase.Disruptions {
		d := &phase.Disruptions[i]
		c := contract.Disruption{Index: i, Action: string(d.Action), At: d.At.Duration}
		switch d.Action {
		case benchv1.DisruptionStepDown:
			c.StepDownSecs, c.CatchUpSecs = int(d.StepDownSeconds()), int(d.CatchUpSeconds())
		case benchv1.DisruptionRestartMember:
			if d.Member != nil {
				c.Member = d.Member.String() // an index as its decimal digits
			}
		}
		if set := DisruptionReplSet(d); set != "" {
			c.Target = set
			for _, p := range DisruptionTargetProcesses(run, d) {
				c.Hosts = append(c.Hosts, Address(run, p, clusterDomain))
			}
		}
		out = append(out, c)
	}
	return out
}

// DisruptionReplSet is the replica set a disruption of a Sharded topology
// hits: ShardName(target) or ConfigReplSet; "" when it has no target (a
// ReplicaSet topology's, or KillMongos).
func DisruptionReplSet(d *benchv1.Disruption) string {
	if d.Target == nil || d.Action == benchv1.DisruptionKillMongos {
		return ""
	}
	if d.Target.Type == intstr.Int {
		return ShardName(int(d.Target.IntVal))
	}
	if d.Target.StrVal == benchv1.TargetConfigServer {
		return ConfigReplSet
	}
	return ""
}

// DisruptionTargetProcesses are the members of the replica set a
// disruption hits, in member order: its target's (Sharded), else the
// ReplicaSet topology's; the mongos for KillMongos. None when the target
// names nothing of the run (the API refuses that).
func DisruptionTargetProcesses(run *benchv1.BenchmarkRun, d *benchv1.Disruption) []Process {
	var out []Process
	set := DisruptionReplSet(d)
	for _, p := range Processes(run) {
		switch {
		case d.Action == benchv1.DisruptionKillMongos:
			if p.Role == benchv1.RoleMongos {
				out = append(out, p)
			}
		case set != "":
			if p.ReplSet == set && (p.Role == benchv1.RoleShard || p.Role == benchv1.RoleConfigServer) {
				out = append(out, p)
			}
		case p.Role == benchv1.RoleMember:
			out = append(out, p)
		}
	}
	return out
}

// disruptionArgs is one --disruption flag per disruption of the phase.
func disruptionArgs(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) []string {
	ds := Disruptions(run, phase, clusterDomain)
	args := make([]string, 0, 2*len(ds))
	for _, d := range ds {
		args = append(args, "--"+contract.FlagDisruption, contract.EncodeDisruption(d))
	}
	return args
}

// DisruptionLedgerNames are the ledger ConfigMaps the phase's loader 0 may
// create, one per disruption, in index order.
func DisruptionLedgerNames(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) []string {
	if phase.Type == benchv1.PhaseGrow || len(phase.Disruptions) == 0 {
		return nil
	}
	job := PhaseJobName(run, phase.Name)
	out := make([]string, 0, len(phase.Disruptions))
	for i := range phase.Disruptions {
		out = append(out, contract.DisruptionLedgerName(job, i))
	}
	return out
}
