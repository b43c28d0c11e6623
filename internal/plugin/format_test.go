package plugin

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/report"
	goldenfile "github.com/mongobench/mongobench/internal/testutil/golden"
	"github.com/mongobench/mongobench/internal/ycsb"
)

var update = flag.Bool("update", false, "rewrite golden files")

func sampleRun() *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "bench"},
		Spec:       sampleSpec(),
		Status:     succeededStatus(),
	}
}

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update, "go test ./internal/plugin -update")
}

func TestResultsGolden(t *testing.T) {
	run := sampleRun()
	for _, format := range []string{outputTable, outputCSV, outputJSON, outputYCSB} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeResults(&buf, run, run.Status.Results, format, []float64{95, 99}, true); err != nil {
				t.Fatal(err)
			}
			golden(t, "results."+format, buf.Bytes())
		})
	}
}

// The CSV and JSON carry the status' numbers unchanged, and ops/s per
// operation is count / phase runtime.
func TestResultsMachineFormatsMatchStatus(t *testing.T) { //nolint:gocyclo // one table of checks per format
	run := sampleRun()
	var js bytes.Buffer
	if err := writeResults(&js, run, run.Status.Results, outputJSON, nil, false); err != nil {
		t.Fatal(err)
	}
	var doc resultsDoc
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Kind != resultsKind || doc.Version != resultsVersion || doc.Name != "demo" || doc.Namespace != "bench" || len(doc.Phases) != 2 {
		t.Fatalf("document header %+v", doc)
	}
	for i, ph := range doc.Phases {
		st := run.Status.Results[i]
		if ph.Name != st.Name || ph.Count != st.Operations || ph.OpsPerSec != st.Throughput || ph.RuntimeMillis != st.RuntimeMillis || ph.P99Micros != st.P99Micros {
			t.Errorf("phase %d: %+v vs status %+v", i, ph, st)
		}
		for j, op := range ph.Operations {
			so := st.OperationStats[j]
			if op.Name != so.Name || op.Count != so.Count || op.Errors != so.Errors || op.AvgMicros != so.AverageMicros ||
				op.P50Micros != so.P50Micros || op.P95Micros != so.P95Micros || op.P99Micros != so.P99Micros || op.P999Micros != so.P999Micros {
				t.Errorf("%s/%s: %+v vs status %+v", ph.Name, op.Name, op, so)
			}
			if want := float64(int64(float64(so.Count)*1000/float64(st.RuntimeMillis)*100+0.5)) / 100; op.OpsPerSec != want {
				t.Errorf("%s/%s: ops/s %v, want %v", ph.Name, op.Name, op.OpsPerSec, want)
			}
			if si, oi := so.Intended, op.Intended; (si == nil) != (oi == nil) || si != nil && (oi.P99Micros != si.P99Micros ||
				oi.MinMicros != si.MinMicros || oi.AvgMicros != si.AverageMicros || oi.P999Micros != si.P999Micros) {
				t.Errorf("%s/%s: intended %+v vs status %+v", ph.Name, op.Name, oi, si)
			}
		}
		if !reflect.DeepEqual(ph.IntendedP99Micros, st.IntendedP99Micros) || !reflect.DeepEqual(ph.StartSkewMillis, st.StartSkewMillis) ||
			len(ph.LoaderStats) != len(st.LoaderStats) || (ph.Warmup == nil) != (st.Warmup == nil) {
			t.Errorf("phase %s: intended p99 %v, skew %v, %d loaders, warm-up %+v; status %v, %v, %d, %+v", ph.Name, ph.IntendedP99Micros,
				ph.StartSkewMillis, len(ph.LoaderStats), ph.Warmup, st.IntendedP99Micros, st.StartSkewMillis, len(st.LoaderStats), st.Warmup)
		}
		for j, l := range ph.LoaderStats {
			if sl := st.LoaderStats[j]; l.Pod != sl.Pod || *l.CPUPercent != *sl.CPUPercent || *l.ThrottledPercent != *sl.ThrottledPercent {
				t.Errorf("phase %s, loader %d: %+v vs status %+v", ph.Name, j, l, sl)
			}
		}
		if w, sw := ph.Warmup, st.Warmup; w != nil && (w.Count != sw.Operations || w.RuntimeMillis != sw.RuntimeMillis ||
			w.OpsPerSec != sw.Throughput || w.P99Micros != sw.P99Micros || len(w.Operations) != len(sw.OperationStats)) {
			t.Errorf("phase %s: warm-up %+v vs status %+v", ph.Name, w, sw)
		}
	}
	if doc.Valid == nil || doc.Valid.Status != "True" || doc.Valid.Reason != "Valid" {
		t.Errorf("valid: %+v", doc.Valid)
	}
	if !reflect.DeepEqual(normalizeJSON(t, doc.Phases[1].Disruptions), normalizeJSON(t, run.Status.Results[1].Disruptions)) {
		t.Errorf("json disruptions %+v, status %+v", doc.Phases[1].Disruptions, run.Status.Results[1].Disruptions)
	}

	var c bytes.Buffer
	if err := writeResults(&c, run, run.Status.Results, outputCSV, nil, false); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// A header, then per phase an OVERALL row, one row per operation, a
	// WARMUP row and one per warm-up operation, one per loader and one
	// per disruption.
	want := 1
	for _, r := range run.Status.Results {
		want += 1 + len(r.OperationStats) + len(r.LoaderStats) + len(r.Disruptions)
		if r.Warmup != nil {
			want += 1 + len(r.Warmup.OperationStats)
		}
	}
	if want != 14 {
		t.Fatalf("the fixture has %d rows, not a warm-up, loaders and disruptions", want)
	}
	if len(rows) != want {
		t.Fatalf("%d csv rows, want %d", len(rows), want)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	// The disruptions' columns follow the others, so every column keeps
	// its position.
	if !reflect.DeepEqual(rows[0], slices.Concat(csvHeader, report.DisruptionColumns)) {
		t.Fatalf("header %v", rows[0])
	}
	var disruptions [][]string
	for _, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			t.Fatalf("row %v has %d columns", row, len(row))
		}
		if row[col["operation"]] == report.RowDisruption {
			disruptions = append(disruptions, row)
		}
		count, _ := strconv.ParseFloat(row[col["count"]], 64)
		rt, _ := strconv.ParseFloat(row[col["runtime_ms"]], 64)
		ops, _ := strconv.ParseFloat(row[col["ops_per_sec"]], 64)
		if d := ops - count*1000/rt; d > 0.005 || d < -0.005 {
			t.Errorf("row %v: ops_per_sec %v != count*1000/runtime_ms", row, ops)
		}
	}
	// Each DISRUPTION row holds its disruption's status, in µs.
	ds := run.Status.Results[1].Disruptions
	if len(disruptions) != len(ds) {
		t.Fatalf("%d DISRUPTION rows, status has %d disruptions", len(disruptions), len(ds))
	}
	d0 := ds[0]
	for name, want := range map[string]string{
		"phase": "run", "disruption": "0", "action": "StepDown", "at_ms": "5000", "outcome": "Done", "action_us": "812345",
		"primary": d0.Outcome.Primary, "write_unavailable_max_us": strconv.FormatInt(d0.WriteUnavailable.MaxMicros, 10),
		"write_unavailable_median_us": strconv.FormatInt(d0.WriteUnavailable.MedianMicros, 10), "read_never_recovered": "1",
		"new_primary_max_us": "1500000", "disruption_errors": "132", "retried": "11", "retried_ok": "9",
		"error_labels":       "NotWritablePrimary=120;InterruptedDueToReplStateChange=8;NetworkError=3;Other=1",
		"before_ops_per_sec": "2010.4", "after_p99_us": "1911", "instant": "2026-05-02T10:00:16.000000Z",
	} {
		if got := disruptions[0][col[name]]; got != want {
			t.Errorf("disruption 0: %s = %q, want %q", name, got, want)
		}
	}
	// A disruption the phase did not reach measured nothing: no zeros.
	for _, name := range []string{"outcome", "disruption_errors", "retried", "write_unavailable_max_us", "sent"} {
		want := map[string]string{"outcome": "NotReached"}[name]
		if got := disruptions[1][col[name]]; got != want {
			t.Errorf("disruption 1: %s = %q, want %q", name, got, want)
		}
	}
}

// normalizeJSON compares values through their JSON form.
func normalizeJSON(t *testing.T, v any) any {
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

// A run without disruptions prints the CSV and YCSB report it printed
// before disruptions existed: testdata/results-no-disruptions.* are the
// goldens of that time, byte for byte, of the same run.
func TestResultsWithoutDisruptionsUnchanged(t *testing.T) {
	run := sampleRun()
	for i := range run.Status.Results {
		run.Status.Results[i].Disruptions = nil
	}
	for _, format := range []string{outputCSV, outputYCSB} {
		var buf bytes.Buffer
		if err := writeResults(&buf, run, run.Status.Results, format, []float64{95, 99}, true); err != nil {
			t.Fatal(err)
		}
		golden(t, "results-no-disruptions."+format, buf.Bytes())
		if strings.Contains(buf.String(), "isruption") || strings.Contains(buf.String(), "DISRUPTION") {
			t.Errorf("%s of a run without disruptions names them:\n%s", format, buf.String())
		}
	}
}

// loaderText is what the loader prints for rr (ycsb.WriteText).
func loaderText(t *testing.T, rr *ycsb.RunResult, pct []float64) string {
	t.Helper()
	var buf bytes.Buffer
	if err := ycsb.WriteText(&buf, rr, pct); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// withoutFailedBlocks drops the "[OP-FAILED]" lines, which status cannot
// rebuild (it keeps no latencies of failed operations).
func withoutFailedBlocks(text string) string {
	var keep []string
	for _, l := range strings.SplitAfter(text, "\n") {
		if !strings.Contains(l, "-FAILED], ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// -o ycsb rebuilt from status prints what the loader printed for the same
// measurements, byte for byte (without the -FAILED blocks): the warm-up's
// [WARMUP] lines and blocks, and the intended blocks of
// measurement.interval both ([Intended-READ] after the others, no Return
// lines) and intended ([READ] holds the intended latencies, with the
// Return lines).
func TestYCSBTextMatchesLoader(t *testing.T) {
	run := sampleRun()
	intended := runRun()
	intended.Interval = ycsb.IntervalIntended
	intendedRun := sampleRun()
	intendedRun.Status.Results[1] = phaseStatus("run", benchv1.PhaseRun, fixtureStart, intended)
	for _, pct := range [][]float64{{95, 99}, {50, 95, 99, 99.9}} {
		for i, tc := range []struct {
			run   *benchv1.BenchmarkRun
			rr    *ycsb.RunResult
			shows string
		}{
			{run, loadRun(), "[WARMUP-INSERT], Operations, 200"},
			{run, runRun(), "[Intended-READ], MinLatency(us), 150"},
			{intendedRun, intended, "[READ], MinLatency(us), 150"},
		} {
			phase := tc.run.Status.Results[min(i, 1) : min(i, 1)+1]
			var got bytes.Buffer
			if err := writeResults(&got, tc.run, phase, outputYCSB, pct, false); err != nil {
				t.Fatal(err)
			}
			want := loaderText(t, tc.rr, pct)
			if i > 0 && !strings.Contains(want, "[READ-FAILED], Operations, 2") {
				t.Fatalf("fixture should exercise -FAILED blocks:\n%s", want)
			}
			if !strings.Contains(want, tc.shows) {
				t.Fatalf("fixture should exercise %q:\n%s", tc.shows, want)
			}
			// The loader's report, then the phase's disruptions.
			if got.String() != withoutFailedBlocks(want)+ycsbDisruptionLines(phase[0].Disruptions) {
				t.Errorf("phase %s (%s), percentiles %v:\n%s\nloader printed:\n%s", phase[0].Name, tc.rr.Interval, pct, got.String(), want)
			}
		}
	}

	// All phases: each report after its header line.
	var all bytes.Buffer
	if err := writeResults(&all, run, run.Status.Results, outputYCSB, []float64{95, 99}, true); err != nil {
		t.Fatal(err)
	}
	dis := ycsbDisruptionLines(run.Status.Results[1].Disruptions)
	if !strings.Contains(dis, "[DISRUPTION 0 StepDown], WriteUnavailableMax(ms), 1734.0\n") ||
		!strings.Contains(dis, "[DISRUPTION 0 StepDown], Error=NotWritablePrimary, 120\n") ||
		!strings.HasSuffix(dis, "[DISRUPTION 1 StepDown], At(ms), 9000\n[DISRUPTION 1 StepDown], Outcome=NotReached, 1\n") {
		t.Errorf("disruption lines:\n%s", dis)
	}
	want := "# run/demo phase=load type=Load loaders=1 threads=4\n" + loaderText(t, loadRun(), []float64{95, 99}) +
		"# run/demo phase=run type=Run loaders=2 threads=8\n" + withoutFailedBlocks(loaderText(t, runRun(), []float64{95, 99})) + dis
	if all.String() != want {
		t.Errorf("all phases:\n%s\nwant:\n%s", all.String(), want)
	}
	// Every value is a number, as YCSB's parsers expect.
	for _, l := range strings.Split(strings.TrimSuffix(dis, "\n"), "\n") {
		v := l[strings.LastIndex(l, ", ")+2:]
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			t.Errorf("line %q: value %q is not a number", l, v)
		}
	}
	// Every line but the headers is a YCSB "[SECTION], Metric, value" line.
	for _, l := range strings.Split(strings.TrimSuffix(all.String(), "\n"), "\n") {
		if !strings.HasPrefix(l, "# ") && (!strings.HasPrefix(l, "[") || strings.Count(l, ", ") != 2) {
			t.Errorf("line %q is neither a header nor a YCSB line", l)
		}
	}
}

// A run from before intended latencies, warm-ups, loaders' figures and
// the Valid condition prints the table it always did.
func TestResultsTableOfAnOldRun(t *testing.T) {
	run := sampleRun()
	meta.RemoveStatusCondition(&run.Status.Conditions, benchv1.ConditionValid)
	for i := range run.Status.Results {
		r := &run.Status.Results[i]
		r.MeasurementInterval, r.IntendedP99Micros, r.Warmup, r.LoaderStats, r.StartSkewMillis, r.Disruptions = "", nil, nil, nil, nil, nil
		for j := range r.OperationStats {
			r.OperationStats[j].Intended = nil
		}
	}
	var buf bytes.Buffer
	if err := writeResults(&buf, run, run.Status.Results, outputTable, nil, false); err != nil {
		t.Fatal(err)
	}
	const want = `PHASE   OPERATION   COUNT   ERRORS   OPS/S    RUNTIME   AVG(us)   P50(us)   P95(us)   P99(us)   P99.9(us)
load    OVERALL     1000    -        98.91    10.11s    -         -         -         1089      -
load    INSERT      1000    0        98.91    -         599.50    599       1049      1089      1099
load    CLEANUP     4       0        0.40     -         25.00     20        40        40        40
run     OVERALL     1503    -        751.50   2s        -         -         -         1084      -
run     READ        1002    2        501.00   -         599.50    599       1049      1089      1099
run     UPDATE      501     1        250.50   -         250.50    250       475       495       500
`
	if buf.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// A run that succeeded but is not valid says so in every format but
// ycsb's (whose parsers would not expect it): the table's VALID line, the
// CSV's valid and valid_reason on every row, the JSON's valid.
func TestResultsShowAnInvalidRun(t *testing.T) {
	run := sampleRun()
	const msg = "phase run: primary of shard demo-shard-0 changed 1 time (an election)"
	meta.SetStatusCondition(&run.Status.Conditions, cond(benchv1.ConditionValid, metav1.ConditionFalse, "PrimaryChanged", msg))
	out := map[string]string{}
	for _, format := range []string{outputTable, outputCSV, outputJSON} {
		var buf bytes.Buffer
		if err := writeResults(&buf, run, run.Status.Results, format, nil, false); err != nil {
			t.Fatal(err)
		}
		out[format] = buf.String()
	}
	if !strings.HasSuffix(out[outputTable], "\nVALID   REASON           MESSAGE\nFalse   PrimaryChanged   "+msg+"\n") {
		t.Errorf("table:\n%s", out[outputTable])
	}
	rows, err := csv.NewReader(strings.NewReader(out[outputCSV])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	valid, reason := slices.Index(rows[0], "valid"), slices.Index(rows[0], "valid_reason")
	for _, r := range rows[1:] {
		if r[valid] != "False" || r[reason] != "PrimaryChanged" {
			t.Errorf("csv row %v", r)
		}
	}
	if !strings.Contains(out[outputJSON], `"valid": {
    "status": "False",
    "reason": "PrimaryChanged",
    "message": "`+msg+`"
  },`) {
		t.Errorf("json:\n%s", out[outputJSON])
	}
}

func TestParseStatusPercentiles(t *testing.T) {
	if got, err := parseStatusPercentiles("99.9, 50"); err != nil || len(got) != 2 || got[0] != 99.9 || got[1] != 50 {
		t.Errorf("parseStatusPercentiles = %v, %v", got, err)
	}
	for _, bad := range []string{"90", "95,99.99", "x", ""} {
		if _, err := parseStatusPercentiles(bad); err == nil {
			t.Errorf("parseStatusPercentiles(%q) accepted", bad)
		}
	}
}

// The disruption lines docs/plugin.md shows are the golden report's.
func TestDocsShowTheDisruptionLines(t *testing.T) {
	doc, err := os.ReadFile(pluginDoc)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "results.ycsb"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(doc), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "[DISRUPTION ") {
			continue
		}
		n++
		if !strings.Contains(string(golden), l+"\n") {
			t.Errorf("%s shows %q, which testdata/results.ycsb does not have", pluginDoc, l)
		}
	}
	if n < 5 {
		t.Errorf("%s shows %d disruption lines", pluginDoc, n)
	}
}

// TestOutcomeCell: a pod deletion's outcome names the pod it deleted; a
// command's (StepDown) has none to name; a Pause's says how long the
// member was frozen.
func TestOutcomeCell(t *testing.T) {
	us, frozenFor, frozen := int64(41_000), int64(16_200_000), int64(15_001_000)
	for _, c := range []struct {
		o    benchv1.DisruptionOutcome
		want string
	}{
		{benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, DurationMicros: &us}, "Done (41ms)"},
		{benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, DurationMicros: &us, Pod: "r-rs0-1"}, "Done (41ms) pod r-rs0-1"},
		{benchv1.DisruptionOutcome{State: benchv1.DisruptionNotReached}, "NotReached"},
		{benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, DurationMicros: &frozenFor, Pod: "r-rs0-0", FrozenMicros: &frozen},
			"Done (16.2s) pod r-rs0-0 frozen 15.001s"},
	} {
		if got := outcomeCell(&c.o); got != c.want {
			t.Errorf("outcome %+v: %q, want %q", c.o, got, c.want)
		}
	}
}
