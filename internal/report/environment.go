package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// envField is one field of a run's recorded environment, named by its path
// in status.environment.
type envField struct {
	Name, Value string
}

// envFields flattens what a run's status.environment says about the
// conditions its numbers come from: the fingerprinted fields and the
// versions around them. Node name and zone are left out, as from the
// fingerprint: runs on different nodes of one shape are comparable. So
// are the phase properties that name the run (contract.RunNamedProperty:
// mongodb.url, its hosts), which differ between any two runs and would
// bury what does change comparability under a row per run.
func envFields(e *benchv1.EnvironmentStatus) []envField {
	var out []envField
	add := func(name, value string) {
		if value != "" {
			out = append(out, envField{name, value})
		}
	}
	add("kubernetesVersion", e.KubernetesVersion)
	add("managerVersion", e.ManagerVersion)
	add("loaderImage", e.LoaderImage)
	add("driverVersion", e.DriverVersion)
	if n := e.Node; n != nil {
		add("node.kernelVersion", n.KernelVersion)
		add("node.osImage", n.OSImage)
		add("node.containerRuntimeVersion", n.ContainerRuntimeVersion)
		add("node.architecture", n.Architecture)
		add("node.instanceType", n.InstanceType)
		if n.AllocatableCPU != nil {
			add("node.allocatableCPU", n.AllocatableCPU.String())
		}
		if n.AllocatableMemory != nil {
			add("node.allocatableMemory", n.AllocatableMemory.String())
		}
	}
	if m := e.MongoDB; m != nil {
		add("mongodb.gitVersion", m.GitVersion)
		add("mongodb.allocator", m.Allocator)
		add("mongodb.openssl", m.OpenSSL)
		add("mongodb.featureCompatibilityVersion", m.FeatureCompatibilityVersion)
		add("mongodb.storageEngine", m.StorageEngine)
		warnings := 0
		for _, p := range m.Processes {
			warnings += len(p.StartupWarnings)
		}
		add("mongodb.startupWarnings", fmt.Sprint(warnings))
	}
	if len(e.DatabasePods) > 0 {
		qos := map[string]int{}
		for _, p := range e.DatabasePods {
			qos[string(p.QOSClass)]++
		}
		parts := make([]string, 0, len(qos))
		for _, k := range slices.Sorted(maps.Keys(qos)) {
			parts = append(parts, fmt.Sprintf("%s×%d", k, qos[k]))
		}
		add("databasePods.qosClass", strings.Join(parts, ", "))
	}
	for _, ph := range e.Phases {
		for _, k := range slices.Sorted(maps.Keys(ph.Properties)) {
			if contract.RunNamedProperty(k) {
				continue
			}
			add("phases["+ph.Name+"]."+k, ph.Properties[k])
		}
	}
	return out
}

// environment compares the recorded environments of a study's runs.
type environment struct {
	// Common are the fields every run recorded with one value.
	Common []envField
	// Differ are the fields whose value is not the same in every run.
	Differ []envDiff
	// Fingerprints group the runs by fingerprint, in order of first run.
	Fingerprints []fingerprintGroup
	// Mixed lists the cells whose repetitions ran under different
	// fingerprints: their median mixes environments.
	Mixed []mixedCell
	// Unrecorded names the runs without an environment.
	Unrecorded []string
}

// envDiff is a field that differs: each value with the runs that had it.
type envDiff struct {
	Field  string
	Values []envValue
}

type envValue struct {
	Value string // "" when the run did not record the field
	Runs  []string
}

type fingerprintGroup struct {
	Fingerprint string
	Runs        []string
	Cells       []string
}

type mixedCell struct {
	Cell   string
	Runs   []string // "name=fingerprint"
	Fields []string // the fields that differ between its repetitions
}

// compareEnvironments reads every run's environment, in cell order.
func (s *Study) compareEnvironments() environment {
	var env environment
	type recorded struct {
		run    string
		fields map[string]string
	}
	var all []recorded
	var order []string // field names in first-seen order
	groups := map[string]int{}
	for ci := range s.Cells {
		c := &s.Cells[ci]
		var cellRuns []recorded
		fps := map[string]bool{}
		var cellDesc []string
		for _, r := range c.Runs {
			if r.Run == nil {
				continue
			}
			e := r.Run.Status.Environment
			if e == nil {
				env.Unrecorded = append(env.Unrecorded, r.Name)
				continue
			}
			rec := recorded{run: r.Name, fields: map[string]string{}}
			for _, f := range envFields(e) {
				if !slices.Contains(order, f.Name) {
					order = append(order, f.Name)
				}
				rec.fields[f.Name] = f.Value
			}
			all = append(all, rec)
			cellRuns = append(cellRuns, rec)
			fp := cmp.Or(e.Fingerprint, "(none)")
			fps[fp] = true
			cellDesc = append(cellDesc, r.Name+"="+fp)
			g, ok := groups[fp]
			if !ok {
				g = len(env.Fingerprints)
				groups[fp] = g
				env.Fingerprints = append(env.Fingerprints, fingerprintGroup{Fingerprint: fp})
			}
			env.Fingerprints[g].Runs = append(env.Fingerprints[g].Runs, r.Name)
			if !slices.Contains(env.Fingerprints[g].Cells, c.Name) {
				env.Fingerprints[g].Cells = append(env.Fingerprints[g].Cells, c.Name)
			}
		}
		if len(fps) > 1 {
			m := mixedCell{Cell: c.Name, Runs: cellDesc}
			for _, f := range order {
				if !same(cellRuns, func(r recorded) string { return r.fields[f] }) {
					m.Fields = append(m.Fields, f)
				}
			}
			env.Mixed = append(env.Mixed, m)
		}
	}
	for _, f := range order {
		if same(all, func(r recorded) string { return r.fields[f] }) {
			env.Common = append(env.Common, envField{f, all[0].fields[f]})
			continue
		}
		d := envDiff{Field: f}
		for _, r := range all {
			v := r.fields[f]
			i := slices.IndexFunc(d.Values, func(x envValue) bool { return x.Value == v })
			if i < 0 {
				i = len(d.Values)
				d.Values = append(d.Values, envValue{Value: v})
			}
			d.Values[i].Runs = append(d.Values[i].Runs, r.run)
		}
		env.Differ = append(env.Differ, d)
	}
	return env
}

func same[T any](xs []T, f func(T) string) bool {
	for _, x := range xs[min(1, len(xs)):] {
		if f(x) != f(xs[0]) {
			return false
		}
	}
	return true
}
