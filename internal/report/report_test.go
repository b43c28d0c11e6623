package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenAt(t, filepath.Join("testdata", name), got)
}

func sweepStudy(t *testing.T, name string) *Study {
	t.Helper()
	sw, runs := loadFixture(t, name)
	s, err := FromSweep(sw, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGoldenReports(t *testing.T) {
	for _, tc := range []struct {
		fixture, axis, golden string
		format                Format
	}{
		{"microsharding", "", "microsharding.md", FormatMarkdown},
		{"microsharding", "", "microsharding.csv", FormatCSV},
		{"pool", "", "pool.md", FormatMarkdown},
		{"pool", "maxPoolSize", "pool-by-pool.md", FormatMarkdown},
		{"pool", "", "pool.csv", FormatCSV},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, sweepStudy(t, tc.fixture), tc.format, Options{Axis: tc.axis}); err != nil {
			t.Fatalf("%s: %v", tc.golden, err)
		}
		golden(t, tc.golden, buf.Bytes())
	}
}

// A run is a one-cell study: its own numbers, no axes, no baseline.
func TestRunReport(t *testing.T) {
	_, runs := loadFixture(t, "microsharding")
	s := FromRun(&runs[2], nil)
	var md, csvOut bytes.Buffer
	if err := Markdown(&md, s, Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "run.md", md.Bytes())
	if err := CSV(&csvOut, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "run.csv", csvOut.Bytes())
	if err := Markdown(io.Discard, s, Options{Axis: "topology"}); err == nil || !strings.Contains(err.Error(), "run microsharding-1-r1 has no axes") {
		t.Errorf("--axis on a run: %v", err)
	}
	// The run's aggregate follows SweepPhaseStats' definitions: the sweep's
	// cell of one repetition would say the same.
	r := s.Cells[0].Result("S3")
	res := runs[2].Status.Results[2]
	if r.MedianThroughput != res.Throughput || r.MedianP99Micros != float64(res.P99Micros) || r.Repetitions != 1 || r.ThroughputCoVPercent != nil {
		t.Errorf("S3 of the run: %+v from %+v", r, res)
	}
	if want, ok := sweep.MeanLatency(&res); math.Abs(r.MedianMeanMicros-want) > 1e-9 || !ok {
		t.Errorf("mean latency %v, want %v", r.MedianMeanMicros, want)
	}
}

func TestAxisOption(t *testing.T) {
	s := sweepStudy(t, "pool")
	for _, tc := range []struct {
		axis string
		want int
		err  string
	}{
		{"", 0, ""}, {"threads", 0, ""}, {"maxPoolSize", 1, ""},
		{"pool", -1, `sweep pool has no axis "pool" (its axes: threads, maxPoolSize)`},
	} {
		got, err := s.AxisIndex(tc.axis)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("AxisIndex(%q) = %d, %v; want %d, %q", tc.axis, got, err, tc.want, tc.err)
		}
	}
	if err := Write(io.Discard, s, FormatHTML, Options{Axis: "nope"}); err == nil {
		t.Error("HTML with an unknown axis: no error")
	}
}

// The CSV is one rectangular table: every row has the header's columns,
// and pandas-style readers see the axis values as columns.
func TestCSVIsRectangular(t *testing.T) {
	for _, name := range []string{"microsharding", "pool", "growth"} {
		var buf bytes.Buffer
		if err := CSV(&buf, sweepStudy(t, name)); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&buf).ReadAll() // FieldsPerRecord 0: every row as long as the first
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		header := rows[0]
		col := func(name string) int { return slices.Index(header, name) }
		for _, c := range []string{"cell", "run", "phase", "operation", "ops_per_sec", "p99_us", "fingerprint"} {
			if col(c) < 0 {
				t.Errorf("%s: no column %q in %v", name, c, header)
			}
		}
		// Every run × phase has exactly one OVERALL row.
		overalls := map[string]int{}
		for _, r := range rows[1:] {
			if r[col("operation")] == RowOverall {
				overalls[r[col("run")]+"/"+r[col("phase")]]++
			}
		}
		for k, n := range overalls {
			if n != 1 {
				t.Errorf("%s: %d OVERALL rows for %s", name, n, k)
			}
		}
	}
	// An axis named like a fixed column keeps both apart.
	s := &Study{Kind: KindSweep, Name: "x", Axes: []Axis{{Name: "run", Values: []AxisValue{{Name: "a"}}}},
		Cells: []Cell{{Name: "a", Values: []benchv1.SweepCellValue{{Axis: "run", Value: "a"}}, Runs: []CellRun{{SweepRunStatus: benchv1.SweepRunStatus{Name: "x-0-r1", Repetition: 1, Phase: benchv1.RunPending}}}}}}
	var buf bytes.Buffer
	if err := CSV(&buf, s); err != nil {
		t.Fatal(err)
	}
	if want := "study,cell_index,cell,axis:run,repetition,run,run_phase,reason,fingerprint,phase,phase_type,operation,count,errors,ops_per_sec,runtime_ms,avg_us,min_us,max_us,p50_us,p95_us,p99_us,p999_us\nx,0,a,a,1,x-0-r1,Pending,,,,,,,,,,,,,,,,\n"; buf.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// The JSON report carries the sweep, every child and their histograms as
// stored, so nothing is lost for a later re-merge.
func TestJSONReport(t *testing.T) {
	sw, runs := loadFixture(t, "pool")
	// What only the API server needs stays out of the report.
	runs[0].ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	runs[0].Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: "{}", "note": "kept"}
	hist := Histograms{"pool-0-r1": {"load": []byte("\x1f\x8bload"), "run": []byte("\x1f\x8brun")}}
	s, err := FromSweep(sw, runs, hist)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := JSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	// Every field of the format, so that an unexpected one fails.
	var got struct {
		Format            string `json:"format"`
		Kind              string `json:"kind"`
		Namespace         string `json:"namespace"`
		Name              string `json:"name"`
		HistogramEncoding string `json:"histogramEncoding"`
		Sweep             struct {
			Metadata metav1.ObjectMeta            `json:"metadata"`
			Spec     benchv1.BenchmarkSweepSpec   `json:"spec"`
			Status   benchv1.BenchmarkSweepStatus `json:"status"`
		} `json:"sweep"`
		Runs []struct {
			Metadata   metav1.ObjectMeta          `json:"metadata"`
			Cell       *int32                     `json:"cell"`
			CellName   string                     `json:"cellName"`
			Repetition int32                      `json:"repetition"`
			Spec       benchv1.BenchmarkRunSpec   `json:"spec"`
			Status     benchv1.BenchmarkRunStatus `json:"status"`
			Histograms map[string][]byte          `json:"histograms"`
		} `json:"runs"`
	}
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Format != "mongobench.report/v1" || got.Kind != KindSweep || got.HistogramEncoding == "" || got.Name != "pool" || got.Namespace != "bench" {
		t.Errorf("format %q, kind %q, %s/%s, encoding %q", got.Format, got.Kind, got.Namespace, got.Name, got.HistogramEncoding)
	}
	if !reflect.DeepEqual(normalize(t, got.Sweep.Spec), normalize(t, sw.Spec)) {
		t.Error("the sweep's spec changed on the way")
	}
	if !reflect.DeepEqual(normalize(t, got.Sweep.Status), normalize(t, sw.Status)) {
		t.Error("the sweep's status changed on the way")
	}
	if len(got.Runs) != len(runs) {
		t.Fatalf("%d runs, want %d", len(got.Runs), len(runs))
	}
	for i, r := range got.Runs {
		if r.Metadata.Name != runs[i].Name || r.Cell == nil || r.Repetition == 0 ||
			!reflect.DeepEqual(normalize(t, r.Status), normalize(t, runs[i].Status)) {
			t.Errorf("run %d: %s cell %v repetition %d, or its status changed", i, r.Metadata.Name, r.Cell, r.Repetition)
		}
	}
	if h := got.Runs[0].Histograms; !reflect.DeepEqual(h, hist["pool-0-r1"]) {
		t.Errorf("histograms of pool-0-r1: %q, want %q", h, hist["pool-0-r1"])
	}
	if m := got.Runs[0].Metadata; m.ManagedFields != nil || !reflect.DeepEqual(m.Annotations, map[string]string{"note": "kept"}) {
		t.Errorf("metadata of pool-0-r1: managed fields %v, annotations %v", m.ManagedFields, m.Annotations)
	}
}

// normalize compares API values through their JSON form (times lose their
// monotonic part on the way).
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A time-series chart draws at most maxSeriesLines cells and says which
// it left out.
func TestTimeSeriesChartIsBounded(t *testing.T) {
	s := &Study{Kind: KindSweep, Name: "many", Repetitions: 1, Phases: []Phase{{Name: "run", Type: benchv1.PhaseRun}}}
	for i := 0; i < 12; i++ {
		run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.RunSucceeded, Results: []benchv1.PhaseResult{{
			Name: "run", TimeSeries: &benchv1.TimeSeries{IntervalMillis: 1000, Throughput: []float64{1, 2, 3}},
		}}}}
		s.Cells = append(s.Cells, Cell{Index: int32(i), Name: "c" + strconv.Itoa(i), baseline: -1,
			Runs: []CellRun{{SweepRunStatus: benchv1.SweepRunStatus{Name: "r" + strconv.Itoa(i), Repetition: 1}, Run: run}}})
	}
	sp, note := s.timeSeriesChart(s.Phases[0])
	if len(sp.Lines) != maxSeriesLines || note != "2 cells not drawn, to keep the chart readable: c10, c11." {
		t.Errorf("%d lines, note %q", len(sp.Lines), note)
	}
}

func TestNumberFormats(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{number(41230.4, 0), "41,230"}, {number(999.95, 1), "1,000.0"}, {number(-1234567.891, 2), "-1,234,567.89"},
		{number(-0.01, 1), "0.0"}, {number(math.NaN(), 0), "-"}, {number(12, 0), "12"},
		{percent(175), "+175.0%"}, {percent(-3.24), "-3.2%"}, {percent(-0.01), "+0.0%"},
		{median(1234.5), "1,234.5"}, {median(1234), "1,234"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestComparisonSection: a gated run's verdicts (spec.compare) and its
// Regressed condition appear in the report.
func TestComparisonSection(t *testing.T) {
	_, runs := loadFixture(t, "microsharding")
	run := runs[2].DeepCopy()
	p := 3.1e-06
	run.Status.Comparison = []benchv1.MetricComparison{
		{Metric: "S3 throughput", Baseline: 28345.25, Current: 24320.5, ChangePercent: -14.199, PValue: &p,
			Verdict: benchv1.VerdictRegressed, Basis: "12-run history"},
		{Metric: "S3 READ p99", Baseline: 6578, Current: 6610, ChangePercent: 0.486, Verdict: benchv1.VerdictAcknowledged,
			Basis: "12-run history", Acknowledged: "JIRA-123"},
	}
	run.Status.Conditions = append(run.Status.Conditions, metav1.Condition{Type: benchv1.ConditionRegressed, Status: metav1.ConditionTrue,
		Reason: "Regression", Message: "S3 throughput -14.2% vs 12-run history (p=3.1e-06)"})
	var md bytes.Buffer
	if err := Markdown(&md, FromRun(run, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	i := strings.Index(out, "## Comparison with the baseline")
	if i < 0 {
		t.Fatalf("no comparison section:\n%s", out)
	}
	golden(t, "run-compare.md", []byte(out[i:strings.Index(out[i+3:], "\n## ")+i+3]))
	if bytes.Contains(mustMarkdown(t, FromRun(&runs[2], nil)), []byte("Comparison with the baseline")) {
		t.Error("a run without spec.compare has a comparison section")
	}
}

// TestSweepComparisonSection: a sweep's own gate, cell by cell.
func TestSweepComparisonSection(t *testing.T) {
	sw, runs := loadFixture(t, "microsharding")
	sw = sw.DeepCopy()
	p := 2e-05
	sw.Status.Cells[1].Comparison = []benchv1.MetricComparison{{Metric: "S2 throughput", Baseline: 18660, Current: 16424, ChangePercent: -11.98,
		PValue: &p, Verdict: benchv1.VerdictRegressed, Basis: "12-run history"}}
	sw.Status.Cells[2].Comparison = []benchv1.MetricComparison{{Metric: "S2 throughput", Baseline: 26500, Current: 26768, ChangePercent: 1.01,
		Verdict: benchv1.VerdictUnchanged, Basis: "12-run history"}}
	sw.Status.Conditions = append(sw.Status.Conditions, metav1.Condition{Type: benchv1.ConditionRegressed, Status: metav1.ConditionTrue,
		Reason: "Regression", Message: "1 of 2 cells regressed: cell 2-shards: S2 throughput -12.0% vs 12-run history (p=2e-05)"})
	st, err := FromSweep(sw, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := string(mustMarkdown(t, st))
	i := strings.Index(out, "## Comparison with the baseline")
	if i < 0 {
		t.Fatalf("no comparison section:\n%s", out)
	}
	end := strings.Index(out[i+3:], "\n## ")
	if end < 0 {
		end = len(out) - i - 3
	}
	golden(t, "sweep-compare.md", []byte(out[i:end+i+3]))
}

func mustMarkdown(t *testing.T, s *Study) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, s, Options{}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
