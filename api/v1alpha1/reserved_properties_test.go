package v1alpha1_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/topology"
)

// The rule on workload.properties rejects the YCSB properties mongobench
// sets itself or that have their own field. Its key list is written twice
// (the rule and its messageExpression); these tests keep both copies the
// same, and the list equal to what the loader Jobs are given.

// reservedNotPassed are reserved keys that no loader Job's command line
// sets, and why a user still must not set them.
var reservedNotPassed = map[string]string{
	mongodb.PropWriteConcern:   "spec.driver.writeConcern, passed as w= in mongodb.url",
	mongodb.PropReadPreference: "spec.driver.readPreference, passed in mongodb.url",
	mongodb.PropMaxConnections: "spec.driver.maxPoolSize, passed in mongodb.url",
	mongodb.PropUpsert:         "would turn the Load phase's inserts into replaceOne upserts",
	"db":                       "the loader ignores it (its binding is MongoDB's); mongodb.url names the database",
	"table":                    "the collection is topology.Collection: the bootstrap Job shards it, the validator Job collMods it",
	"insertstart":              "the Load phase inserts recordcount keys from 0, split between the loaders and pre-split by the bootstrap",
	"insertcount":              "the Load phase inserts recordcount keys from 0, split between the loaders and pre-split by the bootstrap",
	"measurementtype":          "the loader measures with hdrhistogram only, which the controller's result merge relies on",
	"exporter":                 "the report goes into the result ConfigMap (--result-configmap), where the controller reads it",
	"exportfile":               "the report goes into the result ConfigMap (--result-configmap), where the controller reads it",
	"workload":                 "the workload class: the loader runs CoreWorkload only, which spec.workload describes",
}

// passedNotReserved are properties a loader Job sets that a user may set
// too, and why that is harmless.
var passedNotReserved = map[string]string{
	"status": "set by -s, which the loader applies after the properties: a user's value never takes effect, and it only prints status lines",
}

// loaderFlags are the flags of a loader Job's command line other than -P
// and -p: the property each sets ("" for none) and whether it takes a value.
var loaderFlags = map[string]struct {
	property string
	value    bool
}{
	"-threads":           {"threadcount", true},
	"-target":            {"target", true},
	"-s":                 {"status", false},
	"--result-configmap": {"", true},
	"--result-owner":     {"", true},
	"--result-labels":    {"", true},
	// The phase's start barrier (internal/contract): no YCSB property.
	"--" + contract.FlagStartBarrier: {"", true},
	// Server telemetry (internal/contract): no YCSB property.
	"--" + contract.FlagTelemetryInterval:        {"", true},
	"--" + contract.FlagTelemetryProcess:         {"", true},
	"--" + contract.FlagTelemetryCollection:      {"", true},
	"--" + contract.FlagTelemetryCollectionEvery: {"", true},
	// Live metrics (internal/contract): no YCSB property.
	"--" + contract.FlagMetricsAddr:  {"", true},
	"--" + contract.FlagMetricsRun:   {"", true},
	"--" + contract.FlagMetricsPhase: {"", true},
	// A phase's disruptions (internal/contract): no YCSB property.
	"--" + contract.FlagDisruption: {"", true},
}

// TestReservedPropertiesAreWhatMongobenchPasses compares the rule's key list
// (both copies: spec.workload and every phase's workload) with the
// properties the loader Jobs of a run that sets every field receive.
func TestReservedPropertiesAreWhatMongobenchPasses(t *testing.T) {
	reserved := reservedProperties(t)
	passed := passedProperties(t)
	known := map[string]bool{}
	for _, p := range loader.KnownProperties() {
		known[p.Name] = true
	}
	for _, k := range reserved {
		switch {
		case !known[k]:
			t.Errorf("the rule reserves %s, which the loader does not know (a typo?)", k)
		case passed[k] && reservedNotPassed[k] != "":
			t.Errorf("%s is listed in reservedNotPassed, but a loader Job is given it: remove the exception", k)
		case !passed[k] && reservedNotPassed[k] == "":
			t.Errorf("the rule reserves %s, but no loader Job is given it: drop it from the rule or say why in reservedNotPassed", k)
		}
	}
	for k := range passed {
		switch {
		case slices.Contains(reserved, k) && passedNotReserved[k] != "":
			t.Errorf("%s is listed in passedNotReserved, but the rule reserves it: remove the exception", k)
		case !slices.Contains(reserved, k) && passedNotReserved[k] == "":
			t.Errorf("loader Jobs are given %s, but the rule does not reserve it: a user could set it in workload.properties", k)
		}
	}
	for k := range reservedNotPassed {
		if !slices.Contains(reserved, k) {
			t.Errorf("reservedNotPassed lists %s, which the rule does not reserve", k)
		}
	}
	for k := range passedNotReserved {
		if !passed[k] {
			t.Errorf("passedNotReserved lists %s, which no loader Job is given", k)
		}
	}
	// The reason given for table.
	if def := ycsbDefault(t, "table"); def != topology.Collection {
		t.Errorf("YCSB's table defaults to %s, the topology's collection is %s", def, topology.Collection)
	}
}

// reservedProperties returns the rule's key list, after checking that every
// copy of the rule lists the same keys in its rule and its messageExpression.
func reservedProperties(t *testing.T) []string {
	t.Helper()
	rules := crdRules(t, "properties must not set ")
	var paths []string
	for _, r := range rules {
		paths = append(paths, r.path)
	}
	if want := []string{".spec.phases[].workload.properties", ".spec.workload.properties"}; !slices.Equal(paths, want) {
		t.Fatalf("reserved-property rules at %v, want %v", paths, want)
	}
	var first []string
	for _, r := range rules {
		inRule := celStrings(t, r.rule, "![")
		inMessage := celStrings(t, r.messageExpression, "+ [")
		if len(inRule) == 0 {
			t.Fatalf("%s: no key list in %s", r.path, r.rule)
		}
		for _, k := range inRule {
			if !slices.Contains(inMessage, k) {
				t.Errorf("%s: the rule reserves %s, its messageExpression's list lacks it", r.path, k)
			}
		}
		for _, k := range inMessage {
			if !slices.Contains(inRule, k) {
				t.Errorf("%s: the messageExpression lists %s, the rule does not reserve it", r.path, k)
			}
		}
		if d := slices.Compact(slices.Sorted(slices.Values(inRule))); len(d) != len(inRule) {
			t.Errorf("%s: the rule lists a key twice: %v", r.path, inRule)
		}
		if first == nil {
			first = inRule
		} else if !slices.Equal(first, inRule) {
			t.Errorf("the copies of the rule differ (both come from one marker: regenerate with make manifests):\n%v\n%v", first, inRule)
		}
	}
	return first
}

// passedProperties are the properties the loader Jobs of a run receive when
// every field of the spec is set: the -p pairs and the flags' properties,
// with loader.index, which the loader takes from the Indexed Job's
// JOB_COMPLETION_INDEX. The preset file (-P) is not counted: it is the base
// a user's properties override.
func passedProperties(t *testing.T) map[string]bool {
	t.Helper()
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "every", Namespace: "bench", UID: "uid"}}
	run.Spec.Topology.Mode = benchv1.TopologyStandalone
	run.Spec.Workload.Preset = "a"
	fill(reflect.ValueOf(&run.Spec).Elem())
	// Two Run phases: the second one's inserts get their own key range.
	for _, p := range []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad}, {Name: "run1", Type: benchv1.PhaseRun}, {Name: "run2", Type: benchv1.PhaseRun}} {
		fill(reflect.ValueOf(&p).Elem())
		run.Spec.Phases = append(run.Spec.Phases, p)
	}
	// A warm-up is a duration or a number of operations, not both.
	run.Spec.Phases[1].Warmup.Operations = nil
	run.Spec.Phases[2].Warmup.Duration = nil
	// fill leaves slices empty: a disruption makes the Job pass its flag.
	run.Spec.Phases[1].Disruptions = []benchv1.Disruption{{At: metav1.Duration{Duration: time.Second}, Action: benchv1.DisruptionStepDown}}

	cfg := topology.Config{LoaderImage: "loader", ClusterDomain: topology.DefaultClusterDomain, BootstrapTimeout: time.Minute}
	passed := map[string]bool{}
	for i := range run.Spec.Phases {
		job := topology.PhaseJob(run, &run.Spec.Phases[i], time.Hour, cfg)
		if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
			t.Fatal("phase Jobs are no longer Indexed: loader.index needs another source")
		}
		passed["loader.index"] = true
		args := job.Spec.Template.Spec.Containers[0].Args
		for j := 1; j < len(args); j++ {
			switch a := args[j]; a {
			case "-p":
				k, _, _ := strings.Cut(args[j+1], "=")
				passed[k] = true
				j++
			case "-P":
				j++
			default:
				f, ok := loaderFlags[a]
				if !ok {
					t.Fatalf("a phase Job passes %s: add it to loaderFlags with the property it sets", a)
				}
				if f.property != "" {
					passed[f.property] = true
				}
				if f.value {
					j++
				}
			}
		}
	}
	return passed
}

// fill sets every exported field of v that is unset to a non-zero value
// (pointers allocated, numbers 1, booleans true, strings "x"), so that a
// field added to the API is set here without editing this test. Maps,
// slices and interfaces stay empty: the user's own properties are not
// mongobench's.
func fill(v reflect.Value) {
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Struct && !v.IsZero() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString("x")
	}
}

// TestReservedPropertiesAreRejectedByName asks the API server: each reserved
// key, in spec.workload or a phase's workload, is rejected with a message
// that names it (so the messageExpression's list covers the rule's), and a
// property that is not reserved is accepted.
func TestReservedPropertiesAreRejectedByName(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	props := func(k string) map[string]benchv1.PropertyValue { return map[string]benchv1.PropertyValue{k: "1"} }
	newRun := func() *benchv1.BenchmarkRun {
		return &benchv1.BenchmarkRun{
			ObjectMeta: metav1.ObjectMeta{Name: "reserved", Namespace: ns},
			Spec: benchv1.BenchmarkRunSpec{
				Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone},
				Workload: benchv1.WorkloadSpec{Preset: "a"},
				Phases:   []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad}, {Name: "run", Type: benchv1.PhaseRun}},
			},
		}
	}
	where := map[string]func(*benchv1.BenchmarkRun, string){
		"spec": func(br *benchv1.BenchmarkRun, k string) { br.Spec.Workload.Properties = props(k) },
		"phase": func(br *benchv1.BenchmarkRun, k string) {
			br.Spec.Phases[1].Workload = &benchv1.WorkloadParameters{Properties: props(k)}
		},
	}
	reserved := reservedProperties(t)
	for at, set := range where {
		for _, k := range reserved {
			t.Run(at+"/"+k, func(t *testing.T) {
				br := newRun()
				set(br, k)
				err := c.Create(context.Background(), br, client.DryRunAll)
				if want := "properties must not set " + k + ": "; err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v, want one containing %q", err, want)
				}
			})
		}
		t.Run(at+"/maxscanlength", func(t *testing.T) {
			br := newRun()
			set(br, "maxscanlength")
			if err := c.Create(context.Background(), br, client.DryRunAll); err != nil {
				t.Fatalf("a property that is not reserved is rejected: %v", err)
			}
		})
	}
}
