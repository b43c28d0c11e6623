package controllers_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/topology"
)

// newSweep is a sweep over the lifecycle tests' run template.
func newSweep(name string, axes ...benchv1.SweepAxis) *benchv1.BenchmarkSweep {
	return &benchv1.BenchmarkSweep{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkSweepSpec{
			Template: newRun("template", benchv1.TopologyStandalone, 0, 1).Spec,
			Axes:     axes,
		},
	}
}

func topologiesAxis(shards ...int32) benchv1.SweepAxis {
	a := benchv1.SweepAxis{Name: "topologies"}
	for _, n := range shards {
		if n == 1 {
			a.Topologies = append(a.Topologies, benchv1.SweepTopology{Mode: benchv1.TopologyStandalone})
		} else {
			a.Topologies = append(a.Topologies, benchv1.SweepTopology{Mode: benchv1.TopologySharded, Shards: ptr.To(n)})
		}
	}
	return a
}

func (k *cluster) createSweep(sw *benchv1.BenchmarkSweep) *benchv1.BenchmarkSweep {
	k.t.Helper()
	sw.Namespace = k.ns
	if err := k.c.Create(k.ctx(), sw); err != nil {
		k.t.Fatal(err)
	}
	return sw
}

func (k *cluster) sweep(name string) *benchv1.BenchmarkSweep {
	k.t.Helper()
	sw := &benchv1.BenchmarkSweep{}
	if err := k.c.Get(k.ctx(), client.ObjectKey{Namespace: k.ns, Name: name}, sw); err != nil {
		k.t.Fatal(err)
	}
	return sw
}

// waitSweep polls the sweep until cond holds.
func (k *cluster) waitSweep(name, what string, cond func(*benchv1.BenchmarkSweep) bool) *benchv1.BenchmarkSweep {
	k.t.Helper()
	var sw *benchv1.BenchmarkSweep
	k.eventually("sweep "+name+": "+what, 60*time.Second, func() (bool, error) {
		sw = k.sweep(name)
		if cond(sw) {
			return true, nil
		}
		return false, fmt.Errorf("phase %s, %d/%d cells done, %d active, conditions %v", sw.Status.Phase,
			sw.Status.CellsDone, sw.Status.CellsTotal, sw.Status.RunsActive, sw.Status.Conditions)
	})
	return sw
}

func sweepCond(sw *benchv1.BenchmarkSweep, typ string) *metav1.Condition {
	return meta.FindStatusCondition(sw.Status.Conditions, typ)
}

// children lists the sweep's runs by name.
func (k *cluster) children(sweepName string) map[string]*benchv1.BenchmarkRun {
	k.t.Helper()
	var list benchv1.BenchmarkRunList
	if err := k.c.List(k.ctx(), &list, client.InNamespace(k.ns), client.MatchingLabels{benchv1.LabelSweep: sweepName}); err != nil {
		k.t.Fatal(err)
	}
	out := map[string]*benchv1.BenchmarkRun{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out
}

// waitChildren waits until the sweep has exactly the named runs.
func (k *cluster) waitChildren(sweepName string, names ...string) map[string]*benchv1.BenchmarkRun {
	k.t.Helper()
	sort.Strings(names)
	var got map[string]*benchv1.BenchmarkRun
	k.eventually(fmt.Sprintf("runs %v of sweep %s", names, sweepName), 30*time.Second, func() (bool, error) {
		got = k.children(sweepName)
		have := make([]string, 0, len(got))
		for n := range got {
			have = append(have, n)
		}
		sort.Strings(have)
		if strings.Join(have, " ") == strings.Join(names, " ") {
			return true, nil
		}
		return false, fmt.Errorf("runs %v", have)
	})
	return got
}

// phaseNumbers are what the test, playing the run controller, reports for
// one phase of a child run.
type phaseNumbers struct {
	throughput float64
	p99        int64
	readMean   float64 // µs, 900 successful READs
	updateMean float64 // µs, 100 successful UPDATEs
	peakConns  int64
	// disruptions are the phase's status.results[].disruptions.
	disruptions []benchv1.DisruptionResult
}

// finishChild sets a child run Succeeded with results for each phase, and
// the given conditions (a Valid condition), in one status write, as the
// run controller would.
func (k *cluster) finishChild(name string, byPhase map[string]phaseNumbers, conds ...metav1.Condition) {
	k.t.Helper()
	run := k.run(name)
	now := metav1.Now()
	run.Status.Phase = benchv1.RunSucceeded
	run.Status.StartTime, run.Status.CompletionTime = &now, &now
	run.Status.Environment = &benchv1.EnvironmentStatus{Fingerprint: "fp-test"}
	for _, c := range conds {
		meta.SetStatusCondition(&run.Status.Conditions, c)
	}
	for _, ph := range run.Spec.Phases {
		n, ok := byPhase[ph.Name]
		if !ok {
			k.t.Fatalf("no numbers for phase %s of %s", ph.Name, name)
		}
		run.Status.Results = append(run.Status.Results, benchv1.PhaseResult{
			Name: ph.Name, Type: ph.Type, Loaders: run.Spec.Loaders, Threads: ph.Threads * run.Spec.Loaders,
			StartTime: now, CompletionTime: now, RuntimeMillis: 1000, Operations: int64(n.throughput), Throughput: n.throughput,
			StopReason: "Completed", P99Micros: n.p99,
			OperationStats: []benchv1.OperationResult{
				{Name: "READ", Count: 900, AverageMicros: n.readMean, P99Micros: n.p99},
				{Name: "UPDATE", Count: 110, Errors: 10, AverageMicros: n.updateMean, P99Micros: n.p99},
			},
			Server:      []benchv1.ServerSummary{{Role: benchv1.RoleStandalone, Pod: name + "-mongod", Samples: 5, PeakConnections: ptr.To(n.peakConns)}},
			Disruptions: n.disruptions,
		})
	}
	if err := k.c.Status().Update(k.ctx(), run); err != nil {
		k.t.Fatalf("finish %s: %v", name, err)
	}
}

// failChild sets a child run Failed with a reason, as the run controller
// would.
func (k *cluster) failChild(name string, reason benchv1.Reason) {
	k.t.Helper()
	run := k.run(name)
	run.Status.Phase = benchv1.RunFailed
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue,
		Reason: string(reason), Message: "the test failed it"})
	if err := k.c.Status().Update(k.ctx(), run); err != nil {
		k.t.Fatalf("fail %s: %v", name, err)
	}
}

// numbersFor derives distinct, known numbers for a child from its cell
// and repetition.
func numbersFor(cell, rep int, phases ...string) map[string]phaseNumbers {
	out := map[string]phaseNumbers{}
	for i, ph := range phases {
		base := float64(1000*(cell+1) + 100*i)
		out[ph] = phaseNumbers{
			throughput: base + float64(37*rep*rep), // spread grows with the repetition: medians and CoV are not trivial
			p99:        int64(5000 - 400*cell + 13*rep),
			readMean:   float64(200 + 10*cell + rep),
			updateMean: float64(400 + 20*cell + 3*rep),
			peakConns:  int64(10*(cell+1) + rep),
		}
	}
	return out
}

// TestSweepRunsItsCells: expansion into named, labelled, owned runs;
// never more than parallelism active; the plan order; aggregation checked
// against numbers computed here independently; baseline %, the knee and
// the best cell.
func TestSweepRunsItsCells(t *testing.T) {
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	sw := newSweep("grid", topologiesAxis(1, 2, 4), benchv1.SweepAxis{Name: "threads", Threads: []int32{4, 32}})
	sw.Spec.Repetitions = 3
	sw.Spec.Parallelism = 2
	sw.Spec.Baseline = map[string]benchv1.SweepValueName{"topologies": "standalone"}
	k.createSweep(sw)

	// The first two runs of the sequential plan, and nothing else.
	got := k.waitChildren("grid", "grid-0-r1", "grid-0-r2")
	st := k.waitSweep("grid", "Running", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepRunning })
	if st.Status.CellsTotal != 6 || len(st.Status.Order) != 18 || st.Status.Order[2] != "grid-0-r3" || st.Status.Order[3] != "grid-1-r1" {
		t.Fatalf("cells %d, order %v", st.Status.CellsTotal, st.Status.Order)
	}
	if c := sweepCond(st, benchv1.ConditionValidated); c == nil || c.Status != metav1.ConditionTrue || c.Message != "the API server accepts all 6 cells, and a node can hold each" {
		t.Errorf("Validated = %+v", c)
	}
	run := got["grid-0-r1"]
	if !metav1.IsControlledBy(run, st) {
		t.Error("the run is not owned by the sweep")
	}
	wantLabels := map[string]string{benchv1.LabelSweep: "grid", benchv1.LabelCell: "0", benchv1.LabelRepetition: "1",
		benchv1.LabelAxisPrefix + "topologies": "standalone", benchv1.LabelAxisPrefix + "threads": "4"}
	for key, v := range wantLabels {
		if run.Labels[key] != v {
			t.Errorf("label %s = %q, want %q", key, run.Labels[key], v)
		}
	}
	if run.Spec.Topology.Mode != benchv1.TopologyStandalone || run.Spec.Phases[2].Threads != 4 || run.Spec.Topology.Image != "mongo:8.0.16" {
		t.Errorf("run spec: %+v", run.Spec)
	}

	phases := []string{"load", "S2", "S5"}
	done := map[string]bool{}
	for len(done) < 18 {
		children := k.children("grid")
		active := 0
		for name, r := range children {
			if !done[name] && r.Status.Phase == "" {
				active++
			}
		}
		if active > 2 {
			t.Fatalf("%d runs active, parallelism is 2", active)
		}
		// Finish the oldest active run in plan order.
		next := ""
		for _, name := range st.Status.Order {
			if children[name] != nil && !done[name] {
				next = name
				break
			}
		}
		if next == "" {
			k.eventually("a new run", 30*time.Second, func() (bool, error) { return len(k.children("grid")) > len(children), nil })
			continue
		}
		cell, rep, _ := sweep.ParseRunName("grid", next)
		k.finishChild(next, numbersFor(cell, rep, phases...))
		done[next] = true
	}
	st = k.waitSweep("grid", "Succeeded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepSucceeded })
	if c := sweepCond(st, benchv1.ConditionComplete); c == nil || c.Status != metav1.ConditionTrue || c.Message != "all 18 runs of 6 cells succeeded" {
		t.Errorf("Complete = %+v", c)
	}
	if st.Status.CellsDone != 6 || st.Status.CellsFailed != 0 || st.Status.RunsActive != 0 || st.Status.CompletionTime == nil {
		t.Errorf("counts: %+v", st.Status)
	}
	checkGridAggregates(t, st)
}

// checkGridAggregates recomputes the grid's statistics from numbersFor,
// without internal/stats: sort-and-pick medians, textbook sample variance.
func checkGridAggregates(t *testing.T, st *benchv1.BenchmarkSweep) { //nolint:gocyclo // one table, checked field by field
	t.Helper()
	median := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return s[len(s)/2] // three repetitions
	}
	for ci, cell := range st.Status.Cells {
		if cell.Phase != benchv1.SweepSucceeded || len(cell.Results) != 3 || len(cell.Runs) != 3 {
			t.Fatalf("cell %d: %+v", ci, cell)
		}
		baseCell := (ci % 2) // standalone at the same threads
		for pi, res := range cell.Results {
			var tput, p99, mean, baseTput []float64
			for rep := 1; rep <= 3; rep++ {
				n := numbersFor(ci, rep, "load", "S2", "S5")[res.Name]
				tput = append(tput, n.throughput)
				p99 = append(p99, float64(n.p99))
				mean = append(mean, (900*n.readMean+100*n.updateMean)/1000)
				baseTput = append(baseTput, numbersFor(baseCell, rep, "load", "S2", "S5")[res.Name].throughput)
			}
			var sum float64
			for _, x := range tput {
				sum += x
			}
			m := sum / 3
			var ss float64
			for _, x := range tput {
				ss += (x - m) * (x - m)
			}
			cov := math.Sqrt(ss/2) / m * 100
			where := fmt.Sprintf("cell %s phase %s", cell.Name, res.Name)
			if res.Name != []string{"load", "S2", "S5"}[pi] || res.Repetitions != 3 {
				t.Errorf("%s: name/repetitions %s/%d", where, res.Name, res.Repetitions)
			}
			if res.MedianThroughput != median(tput) || res.MinThroughput != tput[0] || res.MaxThroughput != tput[2] {
				t.Errorf("%s: throughput median/min/max %v/%v/%v, want %v/%v/%v", where, res.MedianThroughput, res.MinThroughput, res.MaxThroughput, median(tput), tput[0], tput[2])
			}
			if res.ThroughputCoVPercent == nil || math.Abs(*res.ThroughputCoVPercent-cov) > 1e-9 {
				t.Errorf("%s: CoV %v, want %v", where, res.ThroughputCoVPercent, cov)
			}
			if res.MedianP99Micros != median(p99) || math.Abs(res.MedianMeanMicros-median(mean)) > 1e-9 {
				t.Errorf("%s: p99 %v mean %v, want %v %v", where, res.MedianP99Micros, res.MedianMeanMicros, median(p99), median(mean))
			}
			if res.Errors != 30 {
				t.Errorf("%s: errors %d, want 30", where, res.Errors)
			}
			wantChange := (median(tput) - median(baseTput)) / median(baseTput) * 100
			if res.ThroughputChangePercent == nil || math.Abs(*res.ThroughputChangePercent-wantChange) > 1e-9 {
				t.Errorf("%s: change %v, want %v", where, res.ThroughputChangePercent, wantChange)
			}
			if res.PeakConnections == nil || *res.PeakConnections != int64(10*(ci+1)+3) {
				t.Errorf("%s: peak connections %v", where, res.PeakConnections)
			}
		}
	}
	// Throughput grows by 1000 per cell: at threads 32 (cells 1, 3, 5) the
	// best is 4 shards, and 2 shards (cell 3) does not reach 95% of it.
	var knee *benchv1.SweepKnee
	for i := range st.Status.Knees {
		if k := &st.Status.Knees[i]; k.Axis == "topologies" && k.Phase == "S5" && k.At == "threads=32" {
			knee = k
		}
	}
	if knee == nil || knee.Value != "4-shards" || knee.Number != 4 || knee.BestValue != "4-shards" {
		t.Errorf("knee = %+v (all: %+v)", knee, st.Status.Knees)
	}
	if st.Status.Baseline != "topologies=standalone,threads=*" || st.Status.SummaryPhase != "S5" || st.Status.Best != "4-shards/32: 6348 ops/s" {
		t.Errorf("baseline %q summary %q best %q", st.Status.Baseline, st.Status.SummaryPhase, st.Status.Best)
	}
}

// TestSweepRefusesACellThatFitsNoNode: on 8-CPU nodes, a sweep whose
// second cell asks 20 CPUs for each of its shards fails at validation with
// the run's pre-flight reason, naming the cell, before its first run
// exists; the same sweep without that cell starts.
func TestSweepRefusesACellThatFitsNoNode(t *testing.T) {
	k := newCluster(t)
	for _, n := range []string{"node-eight-a", "node-eight-b"} {
		ensureNode(t, k.c, n, map[string]string{topology.HostnameLabel: "host-" + n, "pool": "eight"}, kube.Resources("8", "32Gi"))
	}
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	shapes := func(name string, values ...benchv1.SweepValue) *benchv1.BenchmarkSweep {
		sw := newSweep(name, benchv1.SweepAxis{Name: "shape", Values: values})
		sw.Spec.Template.Placement.NodeSelector = map[string]string{"pool": "eight"}
		return sw
	}
	small := benchv1.SweepValue{Name: "small"}
	big := benchv1.SweepValue{Name: "big", Patch: &runtime.RawExtension{Raw: []byte(
		`{"topology": {"mode": "Sharded", "shards": 2, "resources": {"requests": {"cpu": "20"}}}}`)}}
	k.createSweep(shapes("toobig", small, big))
	st := k.waitSweep("toobig", "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
	c := sweepCond(st, benchv1.ConditionFailed)
	if c == nil || c.Reason != string(benchv1.ReasonInsufficientResources) ||
		!strings.HasPrefix(c.Message, "cell 1 (shape=big) cannot run; nothing was created: the topology's 4 database pods request cpu=40 in total") ||
		!strings.Contains(c.Message, "(2 such nodes; the largest, node-eight-") || !strings.HasSuffix(c.Message, "has cpu=8)") {
		t.Fatalf("Failed = %+v", c)
	}
	if n := len(k.children("toobig")); n != 0 {
		t.Errorf("%d runs created", n)
	}
	if st.Status.StartTime == nil || st.Status.Phase != benchv1.SweepFailed {
		t.Errorf("status %+v", st.Status)
	}

	// Cells that fit pass, and the sweep starts.
	k.createSweep(shapes("fits", small, benchv1.SweepValue{Name: "sharded", Patch: &runtime.RawExtension{Raw: []byte(
		`{"topology": {"mode": "Sharded", "shards": 2, "resources": {"requests": {"cpu": "2"}}}}`)}}))
	st = k.waitSweep("fits", "a run created", func(s *benchv1.BenchmarkSweep) bool { return len(k.children("fits")) > 0 })
	if c := sweepCond(st, benchv1.ConditionValidated); c == nil || c.Status != metav1.ConditionTrue ||
		c.Message != "the API server accepts all 2 cells, and a node can hold each" {
		t.Errorf("Validated = %+v", c)
	}
}

// TestSweepRejectsAnInvalidCell: the API server's dry run finds the one
// bad cell; the sweep fails naming it, and no run is ever created.
func TestSweepRejectsAnInvalidCell(t *testing.T) {
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	sw := newSweep("invalid", benchv1.SweepAxis{Name: "shape", Values: []benchv1.SweepValue{
		{Name: "fine"},
		{Name: "sharded-no-shards", Patch: &runtime.RawExtension{Raw: []byte(`{"topology": {"mode": "Sharded"}}`)}},
	}}, benchv1.SweepAxis{Name: "threads", Threads: []int32{1, 2}})
	k.createSweep(sw)
	st := k.waitSweep("invalid", "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
	c := sweepCond(st, benchv1.ConditionFailed)
	if c == nil || c.Reason != string(benchv1.ReasonInvalidCell) ||
		!strings.HasPrefix(c.Message, "cell 2 (shape=sharded-no-shards, threads=1) is not a valid BenchmarkRun; nothing was created: ") ||
		!strings.Contains(c.Message, "shards is required when mode is Sharded") {
		t.Fatalf("Failed = %+v", c)
	}
	if n := len(k.children("invalid")); n != 0 {
		t.Errorf("%d runs created", n)
	}

	// A write concern the topology cannot satisfy is such a cell.
	sw = newSweep("invalid-w", benchv1.SweepAxis{Name: "w", WriteConcern: []string{"1", "majority", "2"}})
	k.createSweep(sw)
	st = k.waitSweep("invalid-w", "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
	if c := sweepCond(st, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonInvalidCell) ||
		!strings.HasPrefix(c.Message, "cell 2 (w=2) is not a valid BenchmarkRun; nothing was created: ") ||
		!strings.Contains(c.Message, "driver.writeConcern 2 asks for more members than a standalone has") {
		t.Errorf("Failed = %+v", c)
	}
	if n := len(k.children("invalid-w")); n != 0 {
		t.Errorf("%d runs created", n)
	}

	// What the controller finds before asking the API server.
	for name, edit := range map[string]func(*benchv1.BenchmarkSweep) string{
		"typo": func(s *benchv1.BenchmarkSweep) string {
			s.Spec.Axes[0].Values[1].Patch = &runtime.RawExtension{Raw: []byte(`{"workload": {"recordcount": 5}}`)}
			return `invalid sweep: cell 1 (shape=typo-value): the patched spec is not a BenchmarkRun spec: unknown field "workload.recordcount" (did you mean "workload.recordCount"?)`
		},
		"baseline": func(s *benchv1.BenchmarkSweep) string {
			s.Spec.Baseline = map[string]benchv1.SweepValueName{"shape": "round"}
			return `invalid sweep: baseline names shape=round, but axis "shape" has no value "round" (it has fine, typo-value)`
		},
	} {
		s := newSweep(name, benchv1.SweepAxis{Name: "shape", Values: []benchv1.SweepValue{{Name: "fine"}, {Name: "typo-value"}}})
		want := edit(s)
		k.createSweep(s)
		st := k.waitSweep(name, "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
		if c := sweepCond(st, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonInvalidSweep) || c.Message != want {
			t.Errorf("%s: Failed = %+v, want message %q", name, c, want)
		}
		if n := len(k.children(name)); n != 0 {
			t.Errorf("%s: %d runs created", name, n)
		}
	}
}

// TestSweepFailurePolicies: Continue goes on and ends PartiallySucceeded
// (or Failed when every run failed); Stop starts nothing after a failure.
func TestSweepFailurePolicies(t *testing.T) {
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	phases := []string{"load", "S2", "S5"}

	stop := newSweep("stop", topologiesAxis(1, 2, 4))
	stop.Spec.FailurePolicy = benchv1.SweepStop
	k.createSweep(stop)
	k.waitChildren("stop", "stop-0-r1")
	k.failChild("stop-0-r1", benchv1.ReasonTopologyLost)
	st := k.waitSweep("stop", "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
	if c := sweepCond(st, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonRunFailed) ||
		c.Message != "run stop-0-r1 failed (TopologyLost); failurePolicy Stop: 2 of 3 runs were not started" {
		t.Errorf("Failed = %+v", c)
	}
	k.waitChildren("stop", "stop-0-r1") // and no other

	cont := newSweep("cont", topologiesAxis(1, 2, 4))
	k.createSweep(cont)
	k.waitChildren("cont", "cont-0-r1")
	k.finishChild("cont-0-r1", numbersFor(0, 1, phases...))
	k.waitChildren("cont", "cont-0-r1", "cont-1-r1")
	k.failChild("cont-1-r1", benchv1.ReasonPhaseFailed)
	k.waitChildren("cont", "cont-0-r1", "cont-1-r1", "cont-2-r1")
	k.finishChild("cont-2-r1", numbersFor(2, 1, phases...))
	st = k.waitSweep("cont", "PartiallySucceeded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepPartiallySucceeded })
	if c := sweepCond(st, benchv1.ConditionComplete); c == nil || c.Status != metav1.ConditionTrue || c.Reason != string(benchv1.ReasonSomeRunsFailed) ||
		c.Message != "1 of 3 runs failed (cont-1-r1: PhaseFailed); the cells' results aggregate the runs that succeeded" {
		t.Errorf("Complete = %+v", c)
	}
	if st.Status.CellsFailed != 1 || st.Status.CellsDone != 3 || st.Status.Cells[1].Phase != benchv1.SweepFailed || st.Status.Cells[1].Runs[0].Reason != "PhaseFailed" {
		t.Errorf("status: %+v", st.Status)
	}

	all := newSweep("all", topologiesAxis(1, 2))
	all.Spec.Parallelism = 2
	k.createSweep(all)
	k.waitChildren("all", "all-0-r1", "all-1-r1")
	k.failChild("all-1-r1", benchv1.ReasonTimeout)
	k.failChild("all-0-r1", benchv1.ReasonTimeout)
	st = k.waitSweep("all", "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
	if c := sweepCond(st, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonAllRunsFailed) ||
		c.Message != "all 2 runs failed; the first: all-0-r1 (Timeout)" {
		t.Errorf("Failed = %+v", c)
	}
}

// TestSweepSurvivesManagerRestarts restarts the manager between every two
// steps of a shuffled sweep: the drawn seed and order stay, no run is
// re-created (same UIDs), and a run whose name is taken by a stranger
// fails the sweep instead of adopting the stranger's results.
func TestSweepSurvivesManagerRestarts(t *testing.T) {
	k := newCluster(t)
	seeds := int64(0)
	m := startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true, seed: func() int64 { seeds++; return 1000 + seeds }})
	sw := newSweep("restart", topologiesAxis(1, 2, 4))
	sw.Spec.Repetitions = 2
	sw.Spec.Order = benchv1.SweepShuffled
	k.createSweep(sw)
	first := k.waitSweep("restart", "Running", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepRunning })
	if first.Status.Seed == nil || *first.Status.Seed != 1001 {
		t.Fatalf("seed = %v, want 1001 (the first drawn)", first.Status.Seed)
	}
	want := sweep.Plan("restart", 3, 2, benchv1.SweepShuffled, 1001)
	for i, p := range want {
		if first.Status.Order[i] != p.Name {
			t.Fatalf("order %v, want the plan of seed 1001 %v", first.Status.Order, want)
		}
	}
	uids := map[string]string{}
	for i, p := range want {
		m = m.restart()
		got := k.waitChildren("restart", names(want[:i+1])...)
		for name, r := range got {
			if uids[name] == "" {
				uids[name] = string(r.UID)
			} else if uids[name] != string(r.UID) {
				t.Fatalf("run %s was re-created", name)
			}
		}
		m = m.restart()
		k.finishChild(p.Name, numbersFor(p.Cell, p.Repetition, "load", "S2", "S5"))
	}
	st := k.waitSweep("restart", "Succeeded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepSucceeded })
	if *st.Status.Seed != 1001 || strings.Join(st.Status.Order, " ") != strings.Join(first.Status.Order, " ") {
		t.Errorf("seed %d order %v changed from %v", *st.Status.Seed, st.Status.Order, first.Status.Order)
	}

	// A stranger's run under the name of a later cell's run: the sweep
	// fails before it creates anything.
	stranger := newRun("taken-1-r1", benchv1.TopologyStandalone, 0, 1)
	k.create(stranger)
	taken := newSweep("taken", topologiesAxis(1, 2, 4))
	taken.Spec.Parallelism = 2
	k.createSweep(taken)
	st = k.waitSweep("taken", "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
	if c := sweepCond(st, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonNameConflict) ||
		c.Message != "a BenchmarkRun named taken-1-r1 exists and does not belong to the sweep; delete it or rename the sweep (0 of 3 runs were created)" {
		t.Errorf("Failed = %+v", c)
	}
	if got := k.children("taken"); len(got) != 0 {
		t.Errorf("runs were created: %v", got)
	}
	if r := k.run("taken-1-r1"); len(r.OwnerReferences) != 0 {
		t.Errorf("the stranger's run was changed: %+v", r.ObjectMeta)
	}
	k.noReconcileErrors()
}

// noReconcileErrors fails the test if the manager logged a reconcile error
// for the test's namespace: sweeps end, restart and get deleted quietly.
func (k *cluster) noReconcileErrors() {
	k.t.Helper()
	for _, l := range logs.Lines(`"namespace":"` + k.ns + `"`) {
		// A stopped manager cancels its reconciles mid-request: that is the
		// crash the restart tests play, not an error of the controller.
		if strings.Contains(l, `"msg":"Reconciler error"`) && !strings.Contains(l, "context canceled") {
			k.t.Errorf("reconcile error: %s", l)
		}
	}
}

func names(plan []sweep.Planned) []string {
	out := make([]string, len(plan))
	for i, p := range plan {
		out[i] = p.Name
	}
	return out
}

// TestSweepRunsAreOwnedForGarbageCollection: deleting a sweep deletes its
// runs through the garbage collector, which envtest lacks; this checks the
// owner reference that makes it work, and that a deleted sweep's last
// reconcile ends quietly.
func TestSweepRunsAreOwnedForGarbageCollection(t *testing.T) {
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	sw := k.createSweep(newSweep("owned", topologiesAxis(1)))
	run := k.waitChildren("owned", "owned-0-r1")["owned-0-r1"]
	ref := metav1.GetControllerOf(run)
	if ref == nil || ref.UID != k.sweep(sw.Name).UID || ref.Kind != "BenchmarkSweep" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("owner reference %+v", ref)
	}
	before := reconcilesOf(t, "benchmarksweep")
	if err := k.c.Delete(k.ctx(), k.sweep(sw.Name)); err != nil {
		t.Fatal(err)
	}
	k.eventually("the sweep gone", 30*time.Second, func() (bool, error) {
		err := k.c.Get(k.ctx(), client.ObjectKeyFromObject(sw), &benchv1.BenchmarkSweep{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	k.eventually("the deleted sweep's reconcile", 30*time.Second, func() (bool, error) {
		return reconcilesOf(t, "benchmarksweep") > before, nil
	})
	k.noReconcileErrors()
}

// TestPendingSweepCanBeEdited: until its first run exists a sweep's spec
// may change (CEL freezes it after); the order stored for the old cells
// is replaced, not taken for the new ones.
func TestPendingSweepCanBeEdited(t *testing.T) {
	k := newCluster(t)
	// A manager stored the plan of two cells, then stopped before creating
	// a run.
	sw := k.createSweep(newSweep("edited", topologiesAxis(1, 2)))
	now := metav1.Now()
	sw.Status = benchv1.BenchmarkSweepStatus{Phase: benchv1.SweepPending, StartTime: &now, Order: []string{"edited-0-r1", "edited-1-r1"}, CellsTotal: 2}
	if err := k.c.Status().Update(k.ctx(), sw); err != nil {
		t.Fatal(err)
	}
	sw = k.sweep("edited")
	sw.Spec.Axes[0].Topologies = append(sw.Spec.Axes[0].Topologies, benchv1.SweepTopology{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](4)})
	sw.Spec.Parallelism = 3
	if err := k.c.Update(k.ctx(), sw); err != nil {
		t.Fatalf("edit a Pending sweep: %v", err)
	}
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	k.waitChildren("edited", "edited-0-r1", "edited-1-r1", "edited-2-r1")
	st := k.waitSweep("edited", "Running with 3 cells", func(s *benchv1.BenchmarkSweep) bool {
		return s.Status.Phase == benchv1.SweepRunning && s.Status.CellsTotal == 3
	})
	if strings.Join(st.Status.Order, " ") != "edited-0-r1 edited-1-r1 edited-2-r1" {
		t.Errorf("order %v", st.Status.Order)
	}
	k.noReconcileErrors()
}

// TestDeletedRunIsNotRecreated: a run the sweep created and someone deleted
// counts as failed (RunDeleted) and is never created again, so a user can
// give up on a hung cell; under failurePolicy Stop it stops the sweep.
func TestDeletedRunIsNotRecreated(t *testing.T) {
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	k.createSweep(newSweep("del", topologiesAxis(1, 2)))
	k.waitChildren("del", "del-0-r1")
	k.waitSweep("del", "the run's UID recorded", func(s *benchv1.BenchmarkSweep) bool {
		return len(s.Status.Cells) == 2 && s.Status.Cells[0].Runs[0].UID != ""
	})
	if err := k.c.Delete(k.ctx(), k.run("del-0-r1")); err != nil {
		t.Fatal(err)
	}
	k.waitChildren("del", "del-1-r1")
	// Someone removes the sweep's label from a run: it stays the sweep's.
	own := k.run("del-1-r1")
	k.waitSweep("del", "del-1-r1's UID recorded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Cells[1].Runs[0].UID == own.UID })
	delete(own.Labels, benchv1.LabelSweep)
	if err := k.c.Update(k.ctx(), own); err != nil {
		t.Fatal(err)
	}
	k.finishChild("del-1-r1", numbersFor(1, 1, "load", "S2", "S5"))
	st := k.waitSweep("del", "PartiallySucceeded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepPartiallySucceeded })
	if c := st.Status.Cells[1]; c.Phase != benchv1.SweepSucceeded || len(c.Results) != 3 {
		t.Errorf("the unlabelled run's cell: %+v", c)
	}
	if r := st.Status.Cells[0].Runs[0]; r.Phase != benchv1.RunFailed || r.Reason != string(benchv1.ReasonRunDeleted) {
		t.Errorf("deleted run: %+v", r)
	}
	if got := k.children("del"); len(got) != 0 {
		t.Errorf("labelled runs: %v (the deleted one must not come back)", got)
	}
	if k.exists(&benchv1.BenchmarkRun{}, "del-0-r1") {
		t.Error("the deleted run came back")
	}
	k.noReconcileErrors()
}

// TestSweepWaitsForItsPredecessorsRuns: a sweep re-created under the same
// name (make demo does it) waits while the old sweep's runs, which the
// garbage collector removes, still hold its runs' names; it neither fails
// nor adopts them.
func TestSweepWaitsForItsPredecessorsRuns(t *testing.T) {
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	old := k.createSweep(newSweep("again", topologiesAxis(1)))
	oldRun := k.waitChildren("again", "again-0-r1")["again-0-r1"]
	if err := k.c.Delete(k.ctx(), k.sweep("again")); err != nil {
		t.Fatal(err)
	}
	k.eventually("the old sweep gone", 30*time.Second, func() (bool, error) {
		err := k.c.Get(k.ctx(), client.ObjectKeyFromObject(old), &benchv1.BenchmarkSweep{})
		return apierrors.IsNotFound(err), nil
	})
	k.createSweep(newSweep("again", topologiesAxis(1)))
	st := k.waitSweep("again", "waiting", func(s *benchv1.BenchmarkSweep) bool {
		c := sweepCond(s, benchv1.ConditionValidated)
		return c != nil && c.Reason == string(benchv1.ReasonWaitingForOldRuns)
	})
	if c := sweepCond(st, benchv1.ConditionValidated); st.Status.Phase != benchv1.SweepPending ||
		c.Message != "waiting for again-0-r1 of a deleted sweep of the same name to go" {
		t.Errorf("phase %s, Validated %+v", st.Status.Phase, c)
	}
	// The garbage collector (which envtest lacks) removes the old run.
	if err := k.c.Delete(k.ctx(), oldRun); err != nil {
		t.Fatal(err)
	}
	run := k.waitChildren("again", "again-0-r1")["again-0-r1"]
	if run.UID == oldRun.UID || !metav1.IsControlledBy(run, k.sweep("again")) {
		t.Errorf("the new sweep's run is not its own: %+v", run.ObjectMeta)
	}
	k.noReconcileErrors()
}

// TestSweepRefusesASpreadCellWithTooFewNodes: the sweep's validation puts
// a Spread cell through the run's pre-flight check too: three shards, a
// node each, on a pool of two fail the sweep before its first run exists,
// naming how many nodes were needed and how many fit.
func TestSweepRefusesASpreadCellWithTooFewNodes(t *testing.T) {
	k := newCluster(t)
	for _, n := range []string{"node-spread-a", "node-spread-b"} {
		ensureNode(t, k.c, n, map[string]string{topology.HostnameLabel: "host-" + n, "pool": "spread-sweep"}, kube.Resources("8", "32Gi"))
	}
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	sw := newSweep("spread", benchv1.SweepAxis{Name: "shards", Values: []benchv1.SweepValue{
		{Name: "two", Patch: &runtime.RawExtension{Raw: []byte(`{"topology": {"mode": "Sharded", "shards": 2}}`)}},
		{Name: "three", Patch: &runtime.RawExtension{Raw: []byte(`{"topology": {"mode": "Sharded", "shards": 3}}`)}},
	}})
	sw.Spec.Template.Placement.NodeSelector = map[string]string{"pool": "spread-sweep"}
	sw.Spec.Template.Placement.Layout = benchv1.LayoutSpread
	k.createSweep(sw)
	st := k.waitSweep("spread", "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
	c := sweepCond(st, benchv1.ConditionFailed)
	if c == nil || c.Reason != string(benchv1.ReasonInsufficientResources) ||
		!strings.HasPrefix(c.Message, "cell 1 (shards=three) cannot run; nothing was created: layout Spread puts each of the topology's 3 data-bearing mongods") ||
		!strings.Contains(c.Message, "3 nodes needed, 2 fit") {
		t.Fatalf("Failed = %+v", c)
	}
	if n := len(k.children("spread")); n != 0 {
		t.Errorf("%d runs created", n)
	}
}
