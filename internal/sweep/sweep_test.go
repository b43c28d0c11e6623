package sweep

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

func template() benchv1.BenchmarkRunSpec {
	return benchv1.BenchmarkRunSpec{
		Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone, Image: "mongo:7.0.14", WiredTigerCacheSizeGB: "2"},
		Workload: benchv1.WorkloadSpec{Preset: "a", RecordCount: ptr.To[int64](5000)},
		Phases: []benchv1.PhaseSpec{
			{Name: "load", Type: benchv1.PhaseLoad, Threads: 8},
			{Name: "S2", Type: benchv1.PhaseRun, Threads: 8},
			{Name: "S5", Type: benchv1.PhaseRun, Threads: 8},
		},
		Loaders: 1,
		Driver:  benchv1.DriverSpec{WriteConcern: "1", Journal: ptr.To(true)},
	}
}

func patch(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }

func TestExpandShorthandsAndPatches(t *testing.T) {
	spec := &benchv1.BenchmarkSweepSpec{
		Template: template(),
		Axes: []benchv1.SweepAxis{
			{Name: "topologies", Topologies: []benchv1.SweepTopology{
				{Mode: benchv1.TopologyStandalone},
				{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), ShardKey: benchv1.ShardKeyRanged},
			}},
			{Name: "threads", Threads: []int32{4, 32}},
			{Name: "w", WriteConcern: []string{"0", "majority"}},
			{Name: "validator", Values: []benchv1.SweepValue{
				{Name: "none"},
				{Name: "jsonSchema", Patch: patch(`{"collection": {"validator": {"$jsonSchema": {"bsonType": "object"}}}, "phases": [{"name": "load", "type": "Load"}, {"name": "S9", "type": "Run"}]}`)},
			}},
		},
	}
	axes, cells, err := Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 16 || Count(axes) != 16 {
		t.Fatalf("%d cells, want 16", len(cells))
	}
	// Last axis fastest.
	if got := cells[1].Name(); got != "standalone/4/0/jsonSchema" {
		t.Errorf("cell 1 = %s", got)
	}
	if got := cells[15].Describe(); got != "topologies=2-shards, threads=32, w=majority, validator=jsonSchema" {
		t.Errorf("cell 15 = %s", got)
	}
	c0 := cells[0].Spec
	if c0.Topology.Mode != benchv1.TopologyStandalone || c0.Topology.Shards != nil || c0.Topology.Image != "mongo:7.0.14" {
		t.Errorf("cell 0 topology = %+v", c0.Topology)
	}
	for _, ph := range c0.Phases {
		if ph.Threads != 4 {
			t.Errorf("cell 0 phase %s threads = %d, want 4", ph.Name, ph.Threads)
		}
	}
	if c0.Driver.WriteConcern != "0" || c0.Driver.Journal != nil {
		t.Errorf("w=0 must drop journal: %+v", c0.Driver)
	}
	if c0.Collection != nil {
		t.Error("validator none must keep the template's (no) collection")
	}
	checkLastCell(t, cells[15].Spec)
	// The template is never modified.
	if spec.Template.Phases[1].Threads != 8 || spec.Template.Driver.Journal == nil {
		t.Error("the template changed")
	}
	checkNumbers(t, axes)
}

// checkLastCell: 2 shards (ranged), 32 threads, w=majority, validator.
func checkLastCell(t *testing.T, c15 benchv1.BenchmarkRunSpec) {
	t.Helper()
	if c15.Topology.Mode != benchv1.TopologySharded || *c15.Topology.Shards != 2 || c15.Topology.ShardKey != benchv1.ShardKeyRanged ||
		c15.Topology.Image != "mongo:7.0.14" || c15.Topology.WiredTigerCacheSizeGB != "2" {
		t.Errorf("cell 15 topology = %+v", c15.Topology)
	}
	// The phases patch replaced the list; the threads shorthand still applies.
	if len(c15.Phases) != 2 || c15.Phases[1].Name != "S9" || c15.Phases[1].Threads != 32 || c15.Phases[0].Threads != 32 {
		t.Errorf("cell 15 phases = %+v", c15.Phases)
	}
	if c15.Driver.WriteConcern != "majority" || c15.Driver.Journal == nil || !*c15.Driver.Journal {
		t.Errorf("cell 15 driver = %+v", c15.Driver)
	}
	if c15.Collection == nil || !strings.Contains(string(c15.Collection.Validator.Raw), "$jsonSchema") {
		t.Errorf("cell 15 collection = %+v", c15.Collection)
	}
}

// checkNumbers: topologies count shards (standalone = 1), threads are
// numeric, write concerns and generic values without numbers are not.
func checkNumbers(t *testing.T, axes []Axis) {
	t.Helper()
	if !axes[0].Numeric() || *axes[0].Values[0].Number != 1 || *axes[0].Values[1].Number != 2 {
		t.Errorf("topologies numbers: %+v", axes[0].Values)
	}
	if !axes[1].Numeric() || axes[2].Numeric() || axes[3].Numeric() {
		t.Error("only topologies and threads are numeric")
	}
}

func TestShorthandNames(t *testing.T) {
	spec := &benchv1.BenchmarkSweepSpec{Template: template(), Axes: []benchv1.SweepAxis{
		{Name: "pool", MaxPoolSize: []int32{0, 32}},
		{Name: "loaders", Loaders: []int32{1, 4}},
		{Name: "t", Topologies: []benchv1.SweepTopology{{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](1)}, {Name: "big", Mode: benchv1.TopologySharded, Shards: ptr.To[int32](8)}}},
	}}
	axes, cells, err := Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range axes {
		for _, v := range a.Values {
			names = append(names, v.Name)
		}
	}
	if got := strings.Join(names, " "); got != "unbounded 32 1 4 1-shard big" {
		t.Errorf("names = %s", got)
	}
	if axes[0].Numeric() {
		t.Error("a pool axis with unbounded is not numeric")
	}
	if p := cells[0].Spec.Driver.MaxPoolSize; p == nil || *p != 0 {
		t.Errorf("unbounded pool = %v, want 0", p)
	}
	if cells[7].Spec.Loaders != 4 || *cells[7].Spec.Driver.MaxPoolSize != 32 {
		t.Errorf("cell 7 = %+v", cells[7].Spec)
	}
}

func TestExpandErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(*benchv1.BenchmarkSweepSpec)
		want string
	}{
		{"unknown field in a patch", func(s *benchv1.BenchmarkSweepSpec) {
			s.Axes = append(s.Axes, benchv1.SweepAxis{Name: "v", Values: []benchv1.SweepValue{{Name: "a", Patch: patch(`{"workload": {"recordcount": 5}}`)}}})
		}, `cell 0 (threads=1, v=a): the patched spec is not a BenchmarkRun spec: unknown field "workload.recordcount" (did you mean "workload.recordCount"?)`},
		{"misspelt field of a phase", func(s *benchv1.BenchmarkSweepSpec) {
			s.Axes = append(s.Axes, benchv1.SweepAxis{Name: "v", Values: []benchv1.SweepValue{{Name: "a",
				Patch: patch(`{"phases": [{"name": "load", "type": "Load", "threds": 4}]}`)}}})
		}, `unknown field "phases[0].threds" (did you mean "phases[0].threads"?)`},
		{"two misspelt fields", func(s *benchv1.BenchmarkSweepSpec) {
			s.Axes = append(s.Axes, benchv1.SweepAxis{Name: "v", Values: []benchv1.SweepValue{{Name: "a",
				Patch: patch(`{"topology": {"mode": "Standalone", "wiredTigerCacheSize": "1"}, "workload": {"recordcount": 5}}`)}}})
		}, `unknown field "topology.wiredTigerCacheSize" (did you mean "topology.wiredTigerCacheSizeGB"?)` + "\n" +
			`unknown field "workload.recordcount" (did you mean "workload.recordCount"?)`},
		{"wrong type in a patch", func(s *benchv1.BenchmarkSweepSpec) {
			s.Axes = append(s.Axes, benchv1.SweepAxis{Name: "v", Values: []benchv1.SweepValue{{Name: "a", Patch: patch(`{"loaders": "two"}`)}}})
		}, "cell 0 (threads=1, v=a): the patched spec is not a BenchmarkRun spec"},
		{"baseline value missing", func(s *benchv1.BenchmarkSweepSpec) {
			s.Baseline = map[string]benchv1.SweepValueName{"threads": "3"}
		}, `baseline names threads=3, but axis "threads" has no value "3" (it has 1, 2)`},
		{"baseline axis missing", func(s *benchv1.BenchmarkSweepSpec) {
			s.Baseline = map[string]benchv1.SweepValueName{"shards": "3"}
		}, `baseline names axis "shards"`},
		{"duplicate derived names", func(s *benchv1.BenchmarkSweepSpec) {
			s.Axes = append(s.Axes, benchv1.SweepAxis{Name: "t", Topologies: []benchv1.SweepTopology{
				{Mode: benchv1.TopologyStandalone}, {Name: "standalone", Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)}}})
		}, `axis "t": two values are called "standalone"`},
		{"a status too big to store", func(s *benchv1.BenchmarkSweepSpec) {
			// 6 numeric axes of 2 values × 16 phases × 4 repetitions: 256
			// runs, within CEL's bound, but 3,072 knees.
			for len(s.Template.Phases) < 16 {
				s.Template.Phases = append(s.Template.Phases, benchv1.PhaseSpec{Name: "p" + string(rune('a'+len(s.Template.Phases))), Type: benchv1.PhaseRun})
			}
			s.Axes = nil
			for i := 0; i < 6; i++ {
				s.Axes = append(s.Axes, benchv1.SweepAxis{Name: strings.Repeat(string(rune('a'+i)), 32), Values: []benchv1.SweepValue{
					{Name: strings.Repeat("x", 63), Number: ptr.To(1.0)}, {Name: strings.Repeat("y", 63), Number: ptr.To(2.0)}}})
			}
			s.Repetitions = 4
		}, "the sweep's status would take"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := &benchv1.BenchmarkSweepSpec{Template: template(), Axes: []benchv1.SweepAxis{{Name: "threads", Threads: []int32{1, 2}}}}
			c.edit(spec)
			axes, cells, err := Expand(spec)
			if err == nil {
				err = CheckSize(spec, axes, cells)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestClosestField: a misspelt field's hint is a field of the struct its
// path leads to, and none when nothing is close or the path leads nowhere.
func TestClosestField(t *testing.T) {
	spec := reflect.TypeFor[benchv1.BenchmarkRunSpec]()
	for path, want := range map[string]string{
		"workload.recordcount":        "workload.recordCount",
		"phases[3].workload.readprop": "",
		"phases[3].maxExecutiontime":  "phases[3].maxExecutionTime",
		"toplogy":                     "topology",
		"workload.colour":             "",
		"nowhere.recordcount":         "",
		"workload.recordCount.x":      "",
	} {
		if got := closestField(spec, path); got != want {
			t.Errorf("closestField(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestPlan(t *testing.T) {
	seq := Plan("study", 3, 2, benchv1.SweepSequential, 0)
	var names []string
	for _, p := range seq {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "study-0-r1 study-0-r2 study-1-r1 study-1-r2 study-2-r1 study-2-r2" {
		t.Errorf("sequential = %s", got)
	}
	a := Plan("study", 20, 3, benchv1.SweepShuffled, 42)
	b := Plan("study", 20, 3, benchv1.SweepShuffled, 42)
	c := Plan("study", 20, 3, benchv1.SweepShuffled, 43)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed must give the same order")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("another seed should give another order")
	}
	if reflect.DeepEqual(a, Plan("study", 20, 3, benchv1.SweepSequential, 42)) {
		t.Error("shuffled equals sequential")
	}
	got := make([]string, len(a))
	for i, p := range a {
		got[i] = p.Name
	}
	sort.Strings(got)
	want := make([]string, 0, 60)
	for _, p := range Plan("study", 20, 3, benchv1.SweepSequential, 0) {
		want = append(want, p.Name)
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Error("shuffled is not a permutation of the runs")
	}
	// The stored order round-trips; a foreign name is refused.
	names = nil
	for _, p := range a {
		names = append(names, p.Name)
	}
	back, err := PlanFromOrder("study", 20, 3, names)
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Errorf("PlanFromOrder = %v, %v", back, err)
	}
	names[5] = "study-20-r1"
	if _, err := PlanFromOrder("study", 20, 3, names); err == nil {
		t.Error("a run outside the sweep was accepted")
	}
}

func TestRunNamesAndLabelsAreValid(t *testing.T) {
	sweep := strings.Repeat("s", 32)
	name := RunName(sweep, 255, 10)
	if len(name) > 40 {
		t.Errorf("%s is %d characters", name, len(name))
	}
	// Any sweep name the API accepts (at most 32 characters, a DNS-1035
	// label) gives run names the API accepts (at most 40, DNS-1035
	// labels: they prefix the runs' Service names).
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		t.Error(errs)
	}
	if errs := validation.IsDNS1035Label(RunName("s9", 0, 1)); len(errs) > 0 {
		t.Error(errs)
	}
	for _, n := range []string{"s-1-r1", "s-0-r10", "s-x-r1", "s-01-r1", "s-1-r0", "t-1-r1", "s-1"} {
		c, r, ok := ParseRunName("s", n)
		t.Logf("%s → %d %d %v", n, c, r, ok)
		if ok != (n == "s-1-r1" || n == "s-0-r10") {
			t.Errorf("ParseRunName(%s) ok = %v", n, ok)
		}
	}
	c := &Cell{Index: 3, Values: []benchv1.SweepCellValue{{Axis: "topologies", Value: "2-shards"}, {Axis: "pool", Value: "unbounded"}}}
	for k, v := range Labels("s", c, 2) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			t.Errorf("label key %s: %v", k, errs)
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("label value %s: %v", v, errs)
		}
	}
}

// result builds a phase result; latencies in µs.
func result(name string, tput float64, p99 int64, ops ...benchv1.OperationResult) benchv1.PhaseResult {
	return benchv1.PhaseResult{Name: name, Type: benchv1.PhaseRun, Throughput: tput, P99Micros: p99, OperationStats: ops,
		StartTime: metav1.Now(), CompletionTime: metav1.Now()}
}

func succeeded(results ...benchv1.PhaseResult) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.RunSucceeded, Results: results,
		Environment: &benchv1.EnvironmentStatus{Fingerprint: "fp1"}}}
}

// microsharding aggregates a 4-topology × 3-repetition sweep with a
// failed and a running run.
func microsharding(t *testing.T) Aggregate {
	t.Helper()
	spec := &benchv1.BenchmarkSweepSpec{
		Template: template(),
		Axes: []benchv1.SweepAxis{{Name: "topologies", Topologies: []benchv1.SweepTopology{
			{Mode: benchv1.TopologyStandalone},
			{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)},
			{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](4)},
			{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](6)},
		}}},
		Repetitions: 3,
		Baseline:    map[string]benchv1.SweepValueName{"topologies": "standalone"},
	}
	axes, cells, err := Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan("s", len(cells), 3, benchv1.SweepSequential, 0)
	read := func(avg float64, count, errs int64) benchv1.OperationResult {
		return benchv1.OperationResult{Name: "READ", Count: count, Errors: errs, AverageMicros: avg}
	}
	update := func(avg float64, count int64) benchv1.OperationResult {
		return benchv1.OperationResult{Name: "UPDATE", Count: count, AverageMicros: avg}
	}
	rmw := benchv1.OperationResult{Name: "READ-MODIFY-WRITE", Count: 10, Errors: 3, AverageMicros: 9999}
	runs := map[string]*benchv1.BenchmarkRun{
		// standalone: S2 throughputs 1000, 1100, 900.
		"s-0-r1": succeeded(result("S2", 1000, 900, read(100, 600, 0), update(200, 400)), result("S5", 2000, 500)),
		"s-0-r2": succeeded(result("S2", 1100, 800, read(110, 600, 0), update(210, 400)), result("S5", 2100, 510)),
		"s-0-r3": succeeded(result("S2", 900, 1000, read(90, 500, 100), update(190, 400), rmw), result("S5", 1900, 490)),
		// 2 shards: 2000, 2500 succeeded; r3 failed.
		"s-1-r1": succeeded(result("S2", 2000, 700)),
		"s-1-r2": succeeded(result("S2", 2500, 600)),
		"s-1-r3": {Status: benchv1.BenchmarkRunStatus{Phase: benchv1.RunFailed, Conditions: []metav1.Condition{
			{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "TopologyLost", LastTransitionTime: metav1.Now()}}}},
		// 4 shards: 3700, 3800, 3750; 6 shards: 3900, 3850, 3880 (≥ 95% at 4).
		"s-2-r1": succeeded(result("S2", 3700, 500)), "s-2-r2": succeeded(result("S2", 3800, 500)), "s-2-r3": succeeded(result("S2", 3750, 500)),
		"s-3-r1": succeeded(result("S2", 3900, 400)), "s-3-r2": succeeded(result("S2", 3850, 400)),
		// s-3-r3 is still running.
		"s-3-r3": {Status: benchv1.BenchmarkRunStatus{Phase: benchv1.RunRunning}},
	}
	return AggregateRuns(spec, axes, cells, plan, runs)
}

func TestAggregateProgress(t *testing.T) {
	agg := microsharding(t)
	if agg.CellsDone != 3 || agg.CellsFailed != 1 || agg.RunsActive != 1 || agg.RunsFailed != 1 || agg.RunsDone != 11 {
		t.Errorf("counts: done %d failed %d active %d runsFailed %d runsDone %d", agg.CellsDone, agg.CellsFailed, agg.RunsActive, agg.RunsFailed, agg.RunsDone)
	}
	phases := []benchv1.SweepLifecycle{agg.Cells[0].Phase, agg.Cells[1].Phase, agg.Cells[2].Phase, agg.Cells[3].Phase}
	if !reflect.DeepEqual(phases, []benchv1.SweepLifecycle{benchv1.SweepSucceeded, benchv1.SweepPartiallySucceeded, benchv1.SweepSucceeded, benchv1.SweepRunning}) {
		t.Errorf("cell phases = %v", phases)
	}
	if r := agg.Cells[1].Runs[2]; r.Reason != "TopologyLost" || r.Phase != benchv1.RunFailed {
		t.Errorf("failed run = %+v", r)
	}
}

func TestAggregateStatistics(t *testing.T) {
	agg := microsharding(t)
	s2 := agg.Cells[0].Results[0]
	// Independently: median(1000, 1100, 900) = 1000; sample sd = 100; CoV = 10%.
	if s2.Name != "S2" || s2.Repetitions != 3 || s2.MedianThroughput != 1000 || s2.MinThroughput != 900 || s2.MaxThroughput != 1100 {
		t.Errorf("standalone S2 = %+v", s2)
	}
	if s2.ThroughputCoVPercent == nil || math.Abs(*s2.ThroughputCoVPercent-10) > 1e-12 {
		t.Errorf("CoV = %v, want 10", s2.ThroughputCoVPercent)
	}
	if s2.MedianP99Micros != 900 {
		t.Errorf("median p99 = %v", s2.MedianP99Micros)
	}
	// Means per repetition: (100*600+200*400)/1000 = 140; (110*600+210*400)/1000 = 150;
	// (90*400+190*400)/800 = 140 (failed reads and READ-MODIFY-WRITE excluded) → median 140.
	if s2.MedianMeanMicros != 140 {
		t.Errorf("median mean = %v, want 140", s2.MedianMeanMicros)
	}
	if s2.Errors != 100 {
		t.Errorf("errors = %d, want 100 (READ-MODIFY-WRITE's are its inner operations')", s2.Errors)
	}
	if s2.ThroughputChangePercent == nil || *s2.ThroughputChangePercent != 0 {
		t.Errorf("baseline change = %v, want 0", s2.ThroughputChangePercent)
	}
	two := agg.Cells[1].Results[0]
	// median(2000, 2500) = 2250 → +125%; p99 median 650 vs 900 → -27.77…%.
	if two.MedianThroughput != 2250 || two.Repetitions != 2 || *two.ThroughputChangePercent != 125 {
		t.Errorf("2-shards S2 = %+v", two)
	}
	if math.Abs(*two.P99ChangePercent-(650.0-900)/900*100) > 1e-9 {
		t.Errorf("p99 change = %v", *two.P99ChangePercent)
	}
	if len(agg.Cells[1].Results) != 1 {
		t.Error("2-shards has no S5 results; it must not report one")
	}
}

func TestAggregateKneeAndBest(t *testing.T) {
	agg := microsharding(t)
	// Knee on S2: best 3875 (6 shards, median of 3900, 3850); 95% = 3681.25 → 4 shards.
	var s2knee *benchv1.SweepKnee
	for i := range agg.Knees {
		if agg.Knees[i].Phase == "S2" {
			s2knee = &agg.Knees[i]
		}
	}
	if s2knee == nil || s2knee.Value != "4-shards" || s2knee.Number != 4 || s2knee.BestValue != "6-shards" || s2knee.BestThroughput != 3875 || s2knee.At != "" {
		t.Errorf("knee = %+v", s2knee)
	}
	if agg.Baseline != "standalone" || agg.SummaryPhase != "S5" || agg.Best != "standalone: 2000 ops/s" {
		t.Errorf("baseline %q summary %q best %q", agg.Baseline, agg.SummaryPhase, agg.Best)
	}
	// The status round-trips through JSON exactly (no rounding of the numbers).
	b, err := json.Marshal(agg.Cells)
	if err != nil {
		t.Fatal(err)
	}
	var back []benchv1.SweepCellStatus
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, agg.Cells) {
		t.Errorf("round trip changed the cells: %v", err)
	}
}

func TestPartialBaselineAndSlicedKnees(t *testing.T) {
	spec := &benchv1.BenchmarkSweepSpec{
		Template: template(),
		Axes: []benchv1.SweepAxis{
			{Name: "pool", MaxPoolSize: []int32{0, 32}},
			{Name: "threads", Threads: []int32{1, 2, 4}},
		},
		Repetitions: 1,
		Baseline:    map[string]benchv1.SweepValueName{"pool": "unbounded"},
	}
	axes, cells, err := Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan("c", len(cells), 1, benchv1.SweepSequential, 0)
	tput := []float64{100, 190, 200, 100, 150, 300}
	runs := map[string]*benchv1.BenchmarkRun{}
	for i, p := range plan {
		runs[p.Name] = succeeded(result("S5", tput[i], 10))
	}
	agg := AggregateRuns(spec, axes, cells, plan, runs)
	if agg.Baseline != "pool=unbounded,threads=*" {
		t.Errorf("baseline = %q", agg.Baseline)
	}
	// Cell 4 (32/2) is compared with cell 1 (unbounded/2): 150 vs 190.
	if got := *agg.Cells[4].Results[0].ThroughputChangePercent; math.Abs(got-(150.0-190)/190*100) > 1e-9 {
		t.Errorf("change = %v", got)
	}
	// Knees on threads, one per pool value; pool (with unbounded) has none.
	if len(agg.Knees) != 2 {
		t.Fatalf("knees = %+v", agg.Knees)
	}
	if k := agg.Knees[0]; k.At != "pool=unbounded" || k.Value != "2" || k.BestValue != "4" {
		t.Errorf("knee 0 = %+v", k)
	}
	if k := agg.Knees[1]; k.At != "pool=32" || k.Value != "4" {
		t.Errorf("knee 1 = %+v", k)
	}
}

// TestStatusBudgetCoversTheRealStatus: the size the budget computes is at
// least what a real aggregate of the same sweep takes, for the largest
// sample study (study-connections' shape: 16 cells × 3 repetitions).
func TestStatusBudgetCoversTheRealStatus(t *testing.T) {
	spec := &benchv1.BenchmarkSweepSpec{Template: template(), Repetitions: 3, Baseline: map[string]benchv1.SweepValueName{"pool": "unbounded"},
		Axes: []benchv1.SweepAxis{{Name: "threads", Threads: []int32{1, 2, 4, 8, 16, 32, 64, 80}}, {Name: "pool", MaxPoolSize: []int32{0, 32}}}}
	axes, cells, err := Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	budget, err := statusBytes(spec, axes, cells)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("s", 32)
	plan := Plan(name, len(cells), 3, benchv1.SweepShuffled, 1)
	runs := map[string]*benchv1.BenchmarkRun{}
	for _, p := range plan {
		run := succeeded()
		run.UID = "5f2a7c1e-9b7d-4f3e-8a61-0c2d4e6f8a9b"
		for _, ph := range cells[p.Cell].Spec.Phases {
			r := result(ph.Name, 12345.678901234+float64(p.Repetition), 4321,
				benchv1.OperationResult{Name: "READ", Count: 100000, Errors: 3, AverageMicros: 123.456789},
				benchv1.OperationResult{Name: "UPDATE", Count: 100000, AverageMicros: 234.567891})
			r.Server = []benchv1.ServerSummary{{PeakConnections: ptr.To[int64](81), MaxCacheDirtyPercent: ptr.To(4.56789)}}
			run.Status.Results = append(run.Status.Results, r)
		}
		runs[p.Name] = run
	}
	agg := AggregateRuns(spec, axes, cells, plan, runs)
	st := benchv1.BenchmarkSweepStatus{Phase: benchv1.SweepSucceeded, Seed: ptr.To[int64](1), CellsTotal: 16, Cells: agg.Cells, Knees: agg.Knees,
		Baseline: agg.Baseline, Best: agg.Best, SummaryPhase: agg.SummaryPhase, Order: names(plan)}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("real status %d bytes, budgeted %d bytes", len(b), budget)
	if len(b) > budget {
		t.Errorf("the budget (%d bytes) underestimates the real status (%d bytes)", budget, len(b))
	}
}

func names(plan []Planned) []string {
	out := make([]string, len(plan))
	for i, p := range plan {
		out[i] = p.Name
	}
	return out
}

// TestExpandKeepsAnEmptyQueryList: a Grow template's queries: [] (inserts
// only) survives the expansion, which re-encodes the template; unset stays
// unset, for the API server to default.
func TestExpandKeepsAnEmptyQueryList(t *testing.T) {
	for _, tc := range []struct {
		queries []benchv1.GrowQuery
		want    string
	}{{[]benchv1.GrowQuery{}, "[]"}, {nil, "null"}, {[]benchv1.GrowQuery{benchv1.GrowQ3}, `["Q3"]`}} {
		tmpl := benchv1.BenchmarkRunSpec{Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone}, Loaders: 1,
			Phases: []benchv1.PhaseSpec{{Name: "grow", Type: benchv1.PhaseGrow, Grow: &benchv1.GrowSpec{TargetRecords: 10, Queries: tc.queries}}}}
		_, cells, err := Expand(&benchv1.BenchmarkSweepSpec{Template: tmpl, Axes: []benchv1.SweepAxis{{Name: "threads", Threads: []int32{1}}}})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(cells[0].Spec.Phases[0].Grow.Queries)
		if string(got) != tc.want {
			t.Errorf("queries %v became %s, want %s", tc.queries, got, tc.want)
		}
	}
}
