package v1alpha1_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// The op-mix rule on spec (every Run phase's proportions sum to 1) holds
// each preset's proportions, because CEL cannot read the workload files the
// loader runs with -P. These tests tie the two: the rule's numbers, and what
// the API server accepts, must be the files' (and, without a preset, YCSB
// CoreWorkload's defaults, which the loader applies).

// mixFields are the op-mix fields: the API's name and YCSB's property.
var mixFields = []struct {
	field, property string
	set             func(*benchv1.WorkloadParameters, float64)
}{
	{"readProportion", "readproportion", func(w *benchv1.WorkloadParameters, v float64) { w.ReadProportion = &v }},
	{"updateProportion", "updateproportion", func(w *benchv1.WorkloadParameters, v float64) { w.UpdateProportion = &v }},
	{"insertProportion", "insertproportion", func(w *benchv1.WorkloadParameters, v float64) { w.InsertProportion = &v }},
	{"scanProportion", "scanproportion", func(w *benchv1.WorkloadParameters, v float64) { w.ScanProportion = &v }},
	{"readModifyWriteProportion", "readmodifywriteproportion",
		func(w *benchv1.WorkloadParameters, v float64) { w.ReadModifyWriteProportion = &v }},
}

// presets are the values of spec.workload.preset, "" for none.
var presets = []benchv1.WorkloadPreset{"", "a", "b", "c", "d", "e", "f"}

// presetProperties are the properties the loader starts from for a preset:
// the file `-P workload<preset>` resolves to (the embedded one), or none.
func presetProperties(t *testing.T, preset benchv1.WorkloadPreset) *ycsb.Properties {
	t.Helper()
	var files []string
	if preset != "" {
		files = []string{"workload" + string(preset)}
	}
	p, err := ycsb.LoadProperties(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ycsbDefault is the loader's value of a property nobody sets.
func ycsbDefault(t *testing.T, property string) string {
	t.Helper()
	for _, p := range ycsb.KnownProperties() {
		if p.Name == property {
			return p.Default
		}
	}
	t.Fatalf("the loader does not know %s", property)
	return ""
}

// presetValue is the loader's value of a numeric property under a preset:
// the file's, else YCSB's default.
func presetValue(t *testing.T, preset benchv1.WorkloadPreset, property string) float64 {
	t.Helper()
	def, err := strconv.ParseFloat(ycsbDefault(t, property), 64)
	if err != nil {
		t.Fatalf("default of %s: %v", property, err)
	}
	v, err := presetProperties(t, preset).Float64(property, def)
	if err != nil {
		t.Fatalf("workload%s: %v", preset, err)
	}
	return v
}

func presetName(p benchv1.WorkloadPreset) string {
	if p == "" {
		return "none"
	}
	return string(p)
}

// TestMixRuleHoldsTheWorkloadFilesProportions reads the per-preset maps out of
// the generated rule and compares every entry with the workload file.
func TestMixRuleHoldsTheWorkloadFilesProportions(t *testing.T) {
	rules := crdRules(t, "must sum to 1 after applying the preset")
	if len(rules) != 1 || rules[0].path != ".spec" {
		t.Fatalf("want one op-mix rule, on .spec; got %+v", rules)
	}
	rule := rules[0].rule
	// Each field falls back to `{'none': 0.95, 'a': 0.5, ...}[preset]`.
	fallback := regexp.MustCompile(`has\(self\.workload\.(\w+)\) \? self\.workload\.\w+ : \{([^}]*)\}\[has\(self\.workload\.preset\) \? self\.workload\.preset : 'none'\]`)
	entry := regexp.MustCompile(`'(\w*)': ([0-9.]+)`)
	found := map[string]map[string]string{}
	for _, m := range fallback.FindAllStringSubmatch(rule, -1) {
		found[m[1]] = map[string]string{}
		for _, e := range entry.FindAllStringSubmatch(m[2], -1) {
			found[m[1]][e[1]] = e[2]
		}
	}
	if len(found) != len(mixFields) {
		t.Fatalf("the rule has preset fallbacks for %d fields, want %d (the op-mix fields); rule:\n%s", len(found), len(mixFields), rule)
	}
	for _, f := range mixFields {
		byPreset, ok := found[f.field]
		if !ok {
			t.Errorf("the rule has no preset fallback for %s", f.field)
			continue
		}
		if len(byPreset) != len(presets) {
			t.Errorf("%s: the rule's fallback has %d entries %v, want one per preset and 'none' (%d)", f.field, len(byPreset), byPreset, len(presets))
		}
		for _, p := range presets {
			got, ok := byPreset[presetName(p)]
			if !ok {
				t.Errorf("%s: the rule has no entry for preset %s", f.field, presetName(p))
				continue
			}
			v, err := strconv.ParseFloat(got, 64)
			if err != nil {
				t.Fatalf("%s[%s] = %q: %v", f.field, presetName(p), got, err)
			}
			if want := presetValue(t, p, f.property); v != want {
				t.Errorf("%s for preset %s: the rule says %v, the loader uses %v (%s)", f.field, presetName(p), v, want, f.property)
			}
		}
	}
}

// TestPresetsEnumMatchesTheWorkloadFiles: every preset the API accepts has
// a built-in workload file, and each file's mix sums to 1 (else the preset
// alone would be rejected).
func TestPresetsEnumMatchesTheWorkloadFiles(t *testing.T) {
	var files []string
	for _, name := range ycsb.EmbeddedWorkloads() {
		if s, ok := strings.CutPrefix(name, "workload"); ok && len(s) == 1 && s >= "a" && s <= "z" {
			files = append(files, s)
		}
	}
	var enum []string
	for _, p := range presets[1:] {
		enum = append(enum, string(p))
	}
	if !slices.Equal(files, enum) {
		t.Errorf("built-in standard workloads %v, presets %v", files, enum)
	}
	for _, p := range presets {
		sum := 0.0
		for _, f := range mixFields {
			sum += presetValue(t, p, f.property)
		}
		if sum < 0.999999 || sum > 1.000001 {
			t.Errorf("preset %s: proportions sum to %v", presetName(p), sum)
		}
	}
}

// TestOperationCountRuleFallback: the rule that an unlimited Run phase needs
// maxExecutionTime falls back to 1000 operations when operationCount is not
// set. Only whether it is 0 matters, and for every preset it is not.
func TestOperationCountRuleFallback(t *testing.T) {
	rules := crdRules(t, "operationCount 0 (unlimited) needs maxExecutionTime")
	if len(rules) != 1 {
		t.Fatalf("want one operationCount rule; got %+v", rules)
	}
	m := regexp.MustCompile(`has\(self\.workload\.operationCount\) \? self\.workload\.operationCount : (\d+)\) > 0`).FindStringSubmatch(rules[0].rule)
	if m == nil {
		t.Fatalf("no numeric operationCount fallback in %s", rules[0].rule)
	}
	fallback, _ := strconv.Atoi(m[1])
	for _, p := range presets[1:] {
		if ops := presetValue(t, p, "operationcount"); (ops > 0) != (fallback > 0) {
			t.Errorf("preset %s: operationcount %v, but the rule assumes %d", p, ops, fallback)
		}
	}
	// Without a preset the loader's own default operationcount is 0
	// (unlimited); the Jobs are given the rule's fallback instead, so the
	// rule's assumption holds for what actually runs.
	if ops := presetValue(t, "", "operationcount"); ops != 0 {
		t.Errorf("without a preset the loader's default operationcount is %v; this test assumed YCSB's 0", ops)
	}
	noPreset := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone}}}
	given := "(none)"
	for _, kv := range topology.Properties(noPreset, &benchv1.PhaseSpec{Name: "run", Type: benchv1.PhaseRun}, "cluster.local") {
		if kv[0] == "operationcount" {
			given = kv[1]
		}
	}
	if given != strconv.Itoa(fallback) {
		t.Errorf("without a preset the Jobs are given operationcount %s, but the rule assumes %d", given, fallback)
	}
}

// TestMixRuleAcceptsEachPresetsFile asks the API server. For every preset
// and every op-mix field g, a Run phase leaves g to the preset, zeroes the
// others in spec.workload but one, h, which the phase sets to 1 - g's value
// in the workload file: accepted exactly when the rule's base for g is the
// file's. The same with h off by 0.1 must be rejected. The three layers
// (phase override, spec.workload, preset) each supply part of the sum.
func TestMixRuleAcceptsEachPresetsFile(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	for _, p := range presets {
		for gi, g := range mixFields {
			h := mixFields[(gi+1)%len(mixFields)]
			base := presetValue(t, p, g.property)
			for _, tc := range []struct {
				name   string
				h      float64
				accept bool
			}{
				{"sums-to-1", 1 - base, true},
				{"off-by-0.1", offBy(1-base, 0.1), false},
			} {
				name := fmt.Sprintf("%s-%s-%s", presetName(p), strings.ToLower(g.field), tc.name)
				t.Run(name, func(t *testing.T) {
					br := mixRun(ns, p, g.field, h.field, tc.h)
					err := c.Create(context.Background(), br, client.DryRunAll)
					switch {
					case tc.accept && err != nil:
						t.Fatalf("%s left to preset %s (%v), %s = %v: rejected: %v", g.field, presetName(p), base, h.field, tc.h, err)
					case !tc.accept && err == nil:
						t.Fatalf("%s left to preset %s (%v), %s = %v: accepted, want a sum error", g.field, presetName(p), base, h.field, tc.h)
					case !tc.accept && !strings.Contains(err.Error(), "must sum to 1 after applying the preset"):
						t.Fatalf("rejected for another reason: %v", err)
					}
				})
			}
		}
	}
}

// offBy moves v by d, up or down, staying within [0, 1].
func offBy(v, d float64) float64 {
	if v-d >= 0 {
		return v - d
	}
	return v + d
}

// mixRun is a run whose Run phase leaves field leave to the preset, sets
// field phaseField to v and every other op-mix field to 0 in spec.workload.
func mixRun(ns string, preset benchv1.WorkloadPreset, leave, phaseField string, v float64) *benchv1.BenchmarkRun {
	spec := benchv1.WorkloadParameters{}
	override := &benchv1.WorkloadParameters{}
	for _, f := range mixFields {
		switch f.field {
		case leave:
		case phaseField:
			f.set(override, v)
		default:
			f.set(&spec, 0)
		}
	}
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "mix", Namespace: ns},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone},
			Workload: benchv1.WorkloadSpec{Preset: preset, WorkloadParameters: spec},
			Phases: []benchv1.PhaseSpec{
				{Name: "load", Type: benchv1.PhaseLoad},
				{Name: "run", Type: benchv1.PhaseRun, Workload: override},
			},
		},
	}
}
