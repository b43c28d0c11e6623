package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
	"github.com/mongobench/mongobench/internal/testutil/sweepfixture"
)

// The nightly fixture (testdata/nightly.json) is a CI gate's history as
// `kubectl get benchmarkruns -l pipeline=nightly -o json` prints it: the
// runs of config/samples/ci/nightly-gate.yaml, one a night, with the
// labels and statuses the controller gives them. Phase a's throughput is
// about 1,800 ops/s for the first 16 nights and about 2,050 ops/s (+14%,
// an accepted improvement) from night 17 (nightlyStep) on; night 22
// failed; night 29 (nightlyGated) drops back to about 1,760 ops/s; night
// 30 came later. Latencies follow throughput (Little's law). Each run's
// status.comparison is what the gate says of it against the runs before
// it. Generated like the sweep fixtures (go test ./internal/report -run
// TestFixtures -fixtures).

const (
	nightlyNamespace = "ci"
	// nightlyStep is the index (in completion order) of the first night
	// after the step up; nightlyGated the gated run's.
	nightlyStep  = 16
	nightlyGated = 28
	nightlyRuns  = 30
	nightlyFail  = 21
)

var nightlyStart = time.Date(2026, 4, 1, 2, 0, 0, 0, time.UTC)

// nightlySpec is the sample's spec as the API server stores it, its
// defaults filled in (the spec-hash label hashes that; the plugin's test
// checks it against a real API server).
func nightlySpec() benchv1.BenchmarkRunSpec {
	until := metav1.NewTime(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC))
	return benchv1.BenchmarkRunSpec{
		Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone, Image: "mongo:8.0.16", WiredTigerCacheSizeGB: "0.25",
			Storage: benchv1.StorageSpec{Medium: benchv1.StorageDisk, Size: ptr.To(resource.MustParse("10Gi"))}, OplogSizeMB: 1024},
		Placement: benchv1.PlacementSpec{LoaderPlacement: benchv1.LoaderPreferOtherNode, Layout: benchv1.LayoutSameNode, Exclusive: ptr.To(true)},
		Workload: benchv1.WorkloadSpec{Preset: "a", RecordCount: ptr.To[int64](10000),
			WorkloadParameters: benchv1.WorkloadParameters{OperationCount: ptr.To[int64](20000)}},
		Phases: []benchv1.PhaseSpec{
			{Name: "load", Type: benchv1.PhaseLoad, Threads: 8, BatchSize: ptr.To[int32](100)},
			{Name: "a", Type: benchv1.PhaseRun, Threads: 8},
		},
		Loaders:   1,
		Driver:    benchv1.DriverSpec{WriteConcern: "1", ReadPreference: "primary"},
		Cleanup:   benchv1.CleanupDelete,
		Telemetry: benchv1.TelemetrySpec{Enabled: ptr.To(true), Interval: &metav1.Duration{Duration: time.Second}},
		Timeout:   &metav1.Duration{Duration: 30 * time.Minute},
		Security:  &benchv1.SecuritySpec{NetworkPolicy: ptr.To(true)},
		Compare: &benchv1.CompareSpec{
			Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 5}},
			Metrics: []benchv1.CompareMetric{
				{Phase: "a", Metric: benchv1.MetricThroughput},
				{Phase: "a", Operation: "READ", Metric: benchv1.MetricP99},
				{Phase: "a", Operation: "UPDATE", Metric: benchv1.MetricP99},
			},
			Acknowledged: []benchv1.CompareAcknowledgement{{Metric: "a UPDATE p99", Reason: "JIRA-481: journal commit interval", Until: &until}},
		},
	}
}

// nightlyName is a generateName-style name: nightly- and five characters
// of the alphabet the API server draws from.
func nightlyName(i int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	sum := sha256.Sum256([]byte{byte(i)})
	b := []byte("nightly-")
	for _, c := range sum[:5] {
		b = append(b, alphabet[int(c)%len(alphabet)])
	}
	return string(b)
}

func nightly() []benchv1.BenchmarkRun {
	m := studyModel{name: "nightly", namespace: nightlyNamespace, seed: 14}
	phases := []phaseModel{
		{spec: benchv1.PhaseSpec{Name: "load", Type: benchv1.PhaseLoad, Threads: 8}, mix: map[string]float64{"INSERT": 1}, ops: 10000},
		{spec: benchv1.PhaseSpec{Name: "a", Type: benchv1.PhaseRun, Threads: 8}, mix: map[string]float64{"READ": 0.5, "UPDATE": 0.5}},
	}
	rng := rand.New(rand.NewPCG(m.seed, 7))
	spec := nightlySpec()
	hash, err := compare.SpecHash(&spec)
	if err != nil {
		panic(err)
	}
	var runs []benchv1.BenchmarkRun
	for i := 0; i < nightlyRuns; i++ {
		level := 1800.0
		switch {
		case i == nightlyGated:
			level = 1760
		case i >= nightlyStep:
			level = 2050
		}
		cm := cellModel{throughput: map[string]float64{"load": 9000, "a": level}, threads: 8, processes: 1}
		start := nightlyStart.Add(time.Duration(i) * 24 * time.Hour)
		run := benchv1.BenchmarkRun{
			TypeMeta:   metav1.TypeMeta{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkRun"},
			ObjectMeta: objectMeta(nightlyName(i), m.namespace, nil),
			Spec:       *spec.DeepCopy(),
		}
		run.CreationTimestamp = metav1.NewTime(start)
		st := &run.Status
		st.StartTime = ptr.To(metav1.NewTime(start))
		st.NodeName = "kind-worker"
		st.Environment = m.environment(cm, 1, &run)
		run.Labels = map[string]string{"pipeline": "nightly", benchv1.LabelFingerprint: st.Environment.Fingerprint, benchv1.LabelSpecHash: hash}
		clock := start.Add(90 * time.Second)
		for _, p := range phases {
			if i == nightlyFail && p.spec.Name == "a" {
				st.Phase, st.CurrentPhase = benchv1.RunFailed, "a"
				st.Conditions = []metav1.Condition{{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: string(benchv1.ReasonPhaseFailed),
					Message: "phase a: loader Job failed: pod exited 1 (OOMKilled)", LastTransitionTime: metav1.NewTime(clock)}}
				st.CompletionTime = ptr.To(metav1.NewTime(clock.Add(time.Minute)))
				break
			}
			r := m.phase(rng, cm, p, clock)
			st.Results = append(st.Results, r)
			clock = r.CompletionTime.Add(15 * time.Second)
		}
		if st.Phase != benchv1.RunFailed {
			st.Phase, st.CurrentPhase = benchv1.RunSucceeded, "a"
			last := st.Results[len(st.Results)-1]
			st.Summary = &benchv1.RunSummary{Phase: last.Name, Throughput: last.Throughput, P99Micros: last.P99Micros}
			st.Conditions = []metav1.Condition{
				{Type: benchv1.ConditionComplete, Status: metav1.ConditionTrue, Reason: "Succeeded", Message: "all 2 phases finished", LastTransitionTime: metav1.NewTime(clock)},
				{Type: benchv1.ConditionFailed, Status: metav1.ConditionFalse, Reason: "Succeeded", Message: "the run succeeded", LastTransitionTime: metav1.NewTime(clock)},
			}
			st.CompletionTime = ptr.To(metav1.NewTime(clock))
		}
		st.ObservedGeneration = 1
		runs = append(runs, run)
	}
	for i := range runs {
		if runs[i].Status.Phase == benchv1.RunSucceeded {
			gate(&runs[i], runs)
		}
	}
	slices.SortFunc(runs, func(a, b benchv1.BenchmarkRun) int { return strings.Compare(a.Name, b.Name) })
	return runs
}

// gate judges a succeeded run against its history as the run controller
// does (controllers/run_compare.go): status.comparison and the Regressed
// condition.
func gate(run *benchv1.BenchmarkRun, all []benchv1.BenchmarkRun) {
	spec := run.Spec.Compare
	history := compare.HistoryRuns(run, all, compare.Window(spec.Baseline.History))
	at := *run.Status.CompletionTime
	if len(history) == 0 {
		sel, _ := compare.RunHistorySelector(run)
		run.Status.Conditions = append(run.Status.Conditions, metav1.Condition{Type: benchv1.ConditionRegressed, Status: metav1.ConditionUnknown,
			Reason: string(benchv1.ReasonBaselineUnavailable), Message: "no earlier succeeded run matches the history selector " + sel.String(), LastTransitionTime: at})
		return
	}
	var acks []compare.Acknowledgement
	for _, a := range spec.Acknowledged {
		acks = append(acks, compare.Acknowledgement{Metric: a.Metric, Reason: a.Reason, Until: a.Until.Time})
	}
	var regressed []string
	counts := map[benchv1.CompareVerdict]int{}
	for _, m := range spec.Metrics {
		name := compare.MetricName(m)
		cur, _ := compare.MetricValue(run, m)
		var ref []float64
		for _, h := range history {
			if v, ok := compare.MetricValue(h, m); ok {
				ref = append(ref, v)
			}
		}
		res, err := compare.AgainstHistory(ref, []float64{cur}, compare.MetricDirection(m), compare.OptionsFor(spec, m))
		if err != nil {
			panic(err)
		}
		res, ack := compare.Acknowledge(res, name, acks, at.Time)
		mc := benchv1.MetricComparison{Metric: name, Baseline: res.Baseline, Current: res.Current, ChangePercent: res.ChangePercent,
			PValue: res.PValue, Verdict: benchv1.CompareVerdict(res.Verdict), Basis: res.Basis}
		if ack != nil {
			mc.Acknowledged = ack.Reason
		}
		counts[mc.Verdict]++
		if mc.Verdict == benchv1.VerdictRegressed {
			regressed = append(regressed, compare.Summary(name, res))
		}
		run.Status.Comparison = append(run.Status.Comparison, mc)
	}
	c := metav1.Condition{Type: benchv1.ConditionRegressed, LastTransitionTime: at}
	if len(regressed) > 0 {
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, string(benchv1.ReasonRegression), strings.Join(regressed, "; ")
	} else {
		var parts []string
		for _, v := range []benchv1.CompareVerdict{benchv1.VerdictUnchanged, benchv1.VerdictImproved, benchv1.VerdictAcknowledged} {
			if counts[v] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[v], strings.ToLower(string(v))))
			}
		}
		c.Status, c.Reason = metav1.ConditionFalse, string(benchv1.ReasonNoRegression)
		c.Message = fmt.Sprintf("no regression against %s: %s", run.Status.Comparison[0].Basis, strings.Join(parts, ", "))
	}
	run.Status.Conditions = append(run.Status.Conditions, c)
}

// TestHistoryFixture checks testdata/nightly.json is what the generator
// makes (or rewrites it with -fixtures).
func TestHistoryFixture(t *testing.T) {
	items := []any{}
	for _, r := range nightly() {
		items = append(items, r)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "nightly.json")
	if *regenerateFixtures {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s differs from what the generator makes; run go test ./internal/report -run TestHistoryFixture -fixtures", path)
	}
}

// loadNightly reads the nightly fixture: the gated run and every run
// (the candidates its history selector selects, itself among them).
func loadNightly(t *testing.T) (*benchv1.BenchmarkRun, []benchv1.BenchmarkRun) {
	t.Helper()
	runs := sweepfixture.LoadRuns(t, filepath.Join("testdata", "nightly.json"))
	for i := range runs {
		if runs[i].Name == nightlyName(nightlyGated) {
			return &runs[i], runs
		}
	}
	t.Fatal("no gated run in the nightly fixture")
	return nil, nil
}
