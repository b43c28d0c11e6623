package topology

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// GrowArgs is the loader command line of a Grow phase: `loader grow` with
// the growth properties, one loader. Its log has a line per checkpoint.
func GrowArgs(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) []string {
	props := GrowProperties(run, phase, clusterDomain)
	args := make([]string, 0, 1+2*len(props))
	args = append(args, contract.CommandGrow)
	for _, kv := range props {
		args = append(args, "-p", kv[0]+"="+kv[1])
	}
	return args
}

// GrowProperties renders a Grow phase's properties in a stable order:
// spec.workload.properties (extra growth.* settings such as
// growth.datestart), then phases[].grow, then what mongobench manages.
// Fields the run leaves unset are left to the loader's defaults, which
// are the API's.
func GrowProperties(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) [][2]string {
	var out [][2]string
	add := func(k string, v any) { out = append(out, [2]string{k, fmt.Sprint(v)}) }
	props := run.Spec.Workload.Properties
	for _, k := range slices.Sorted(maps.Keys(props)) {
		add(k, string(props[k]))
	}
	g := phase.Grow
	if g == nil {
		g = &benchv1.GrowSpec{}
	}
	add(contract.PropGrowthTargetRecords, g.TargetRecords)
	if g.CheckpointEvery != nil {
		add(contract.PropGrowthCheckpointEvery, *g.CheckpointEvery)
	}
	mode := g.InsertMode
	if mode == "" {
		mode = benchv1.GrowAcknowledged
	}
	add(contract.PropGrowthInsertMode, contract.FlagValue(mode))
	if g.BatchSize != nil {
		add(contract.PropGrowthBatchSize, *g.BatchSize)
	}
	add(contract.PropGrowthInsertThreads, max(g.InsertThreads, 1))
	if g.QueryThreads > 0 {
		add(contract.PropGrowthQueryThreads, g.QueryThreads)
	}
	if g.QueryDuration != nil {
		add(contract.PropGrowthQueryDuration, g.QueryDuration.Duration)
	}
	if g.Queries != nil {
		qs := make([]string, len(g.Queries))
		for i, q := range g.Queries {
			qs[i] = contract.FlagValue(q)
		}
		add(contract.PropGrowthQueries, strings.Join(qs, ","))
	}
	if q := g.QueryParameters; q != nil {
		for _, p := range []struct {
			k string
			v *int32
		}{
			{contract.PropGrowthQ1Limit, q.Q1Limit}, {contract.PropGrowthQ2Limit, q.Q2Limit},
			{contract.PropGrowthQ3Skip, q.Q3Skip}, {contract.PropGrowthQ3Limit, q.Q3Limit}, {contract.PropGrowthQ4Limit, q.Q4Limit},
		} {
			if p.v != nil {
				add(p.k, *p.v)
			}
		}
		if len(q.Q2Projection) > 0 {
			add(contract.PropGrowthQ2Projection, strings.Join(q.Q2Projection, ","))
		}
	}
	if g.MatchesPerValue != nil {
		add(contract.PropGrowthMatchesPerValue, *g.MatchesPerValue)
	}
	if g.PayloadBytes != nil {
		add(contract.PropGrowthPayloadSize, *g.PayloadBytes)
	}
	if g.Seed != nil {
		add(contract.PropGrowthSeed, *g.Seed)
	}
	for _, kv := range connectionProperties(run, clusterDomain) {
		add(kv[0], kv[1])
	}
	add(contract.PropLoaderCount, 1)
	return out
}
