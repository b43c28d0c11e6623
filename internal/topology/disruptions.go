package topology

import (
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
// (contract.Disruption), defaults applied; none for a Grow phase, which
// the API refuses them on.
func Disruptions(phase *benchv1.PhaseSpec) []contract.Disruption {
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
		out = append(out, c)
	}
	return out
}

// disruptionArgs is one --disruption flag per disruption of the phase.
func disruptionArgs(phase *benchv1.PhaseSpec) []string {
	ds := Disruptions(phase)
	args := make([]string, 0, 2*len(ds))
	for _, d := range ds {
		args = append(args, "--"+contract.FlagDisruption, contract.EncodeDisruption(d))
	}
	return args
}

// DisruptionLedgerNames are the ledger ConfigMaps the phase's loader 0 may
// create, one per disruption, in index order.
func DisruptionLedgerNames(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) []string {
	ds := Disruptions(phase)
	if len(ds) == 0 {
		return nil
	}
	job := PhaseJobName(run, phase.Name)
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		out = append(out, contract.DisruptionLedgerName(job, d.Index))
	}
	return out
}
