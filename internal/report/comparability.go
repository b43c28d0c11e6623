package report

import (
	"fmt"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
	"github.com/mongobench/mongobench/internal/topology"
)

// comparabilityNote warns, once, when a study compares a Standalone cell
// with Sharded cells: they do not do the same work per write. It names
// the like-with-like baseline, a one-member ReplicaSet: the study's cells
// of one, else the sample sweep that has one. "" when it does not
// compare them.
func (s *Study) comparabilityNote() string {
	var standalone, sharded, oneMember []string
	oplog, retry := map[int32]bool{}, false
	specs := s.cellSpecs()
	for ci := range s.Cells {
		c, spec := &s.Cells[ci], specs[ci]
		if spec == nil {
			continue
		}
		switch spec.Topology.Mode {
		case benchv1.TopologyStandalone:
			standalone = append(standalone, c.Name)
		case benchv1.TopologySharded:
			sharded = append(sharded, c.Name)
			oplog[topology.OplogSizeMB(&benchv1.BenchmarkRun{Spec: *spec})] = true
			retry = retry || spec.Driver.RetryWrites
		case benchv1.TopologyReplicaSet:
			if topology.Members(&benchv1.BenchmarkRun{Spec: *spec}) == 1 {
				oneMember = append(oneMember, c.Name)
			}
		}
	}
	if len(standalone) == 0 || len(sharded) == 0 {
		return ""
	}
	size := "spec.topology.oplogSizeMB"
	if len(oplog) == 1 {
		for mb := range oplog {
			size += fmt.Sprintf(": %d MiB", mb)
		}
	}
	note := fmt.Sprintf("Comparability: %s a standalone mongod, which has no oplog and whose writes never carry a retryable-write "+
		"txnNumber; in %s every shard is a replica set that also writes each change to its oplog (%s).",
		cells(standalone, "runs", "run"), cells(sharded, "", ""), size)
	if retry {
		note += " With spec.driver.retryWrites, their writes also carry a txnNumber that each shard records in config.transactions."
	}
	note += " A sharded cell does more work per write than a standalone one."
	if len(oneMember) > 0 {
		note += fmt.Sprintf(" The like-with-like baseline for them is %s: a one-member replica set, a standalone with an oplog.",
			cells(oneMember, "", ""))
	} else {
		note += " The like-with-like baseline for them is a one-member replica set (spec.topology.mode ReplicaSet, members: 1: " +
			"a standalone with an oplog), which this study has no cell of; the sample sweep study-microsharding-rs " +
			"(config/samples) is the micro-sharding study with that baseline."
	}
	return note
}

// cells names cells for a sentence: "cell a runs", "cells a, b run" (verb
// for one, verbs for several; none: no verb).
func cells(names []string, one, several string) string {
	out := "cell " + names[0]
	verb := one
	if len(names) > 1 {
		out, verb = "cells "+strings.Join(names, ", "), several
	}
	if verb != "" {
		out += " " + verb
	}
	return out
}

// cellSpecs are the specs of the cells' runs, by position in s.Cells: the
// sweep's expansion of each cell, else one of its runs'; nil when neither
// is known.
func (s *Study) cellSpecs() []*benchv1.BenchmarkRunSpec {
	var expanded []sweep.Cell
	if s.Sweep != nil {
		// An error leaves the runs' specs (the controller failed such a
		// sweep: InvalidSweep).
		_, expanded, _ = sweep.Expand(&s.Sweep.Spec)
	}
	out := make([]*benchv1.BenchmarkRunSpec, len(s.Cells))
	for ci := range s.Cells {
		c := &s.Cells[ci]
		if i := int(c.Index); i < len(expanded) && expanded[i].Index == i {
			out[ci] = &expanded[i].Spec
			continue
		}
		for _, r := range c.Runs {
			if r.Run != nil {
				out[ci] = &r.Run.Spec
				break
			}
		}
	}
	return out
}
