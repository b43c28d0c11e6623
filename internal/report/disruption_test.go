package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/stats"
)

// failoverRun is the failover study's first run as a study of its own,
// with its phase a's merged result when withSeries.
func failoverRun(t *testing.T, withSeries bool) *Study {
	t.Helper()
	_, runs := loadFixture(t, "failover")
	run := &runs[0]
	var hist Histograms
	if withSeries {
		hist = failoverHistograms(t, runs[:1])
	}
	return FromRun(run, hist)
}

// failoverHistograms are the runs' merged results of phase a, encoded as
// the controller stores them.
func failoverHistograms(t *testing.T, runs []benchv1.BenchmarkRun) Histograms {
	t.Helper()
	out := Histograms{}
	for i := range runs {
		b, err := results.Encode(failoverMerged(&runs[i]))
		if err != nil {
			t.Fatal(err)
		}
		out[runs[i].Name] = map[string][]byte{"a": b}
	}
	return out
}

// jsonDisruptions is the disruptions part of the study's JSON report.
func jsonDisruptions(t *testing.T, s *Study) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := JSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Disruptions json.RawMessage `json:"disruptions"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc.Disruptions, "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(out.Bytes(), '\n')
}

// A run with two disruptions, one Done and one NotReached, and a phase
// without any: every format shows them, from the one reduction.
func TestDisruptionRunReport(t *testing.T) {
	s := failoverRun(t, false)
	var md, c bytes.Buffer
	if err := Markdown(&md, s, Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "failover-run.md", md.Bytes())
	if err := CSV(&c, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "failover-run.csv", c.Bytes())
	golden(t, "failover-run-disruptions.json", jsonDisruptions(t, s))

	st := s.Runs[0].Status.Results[1].Disruptions
	d := st[0]
	text := md.String()
	for _, want := range []string{
		"## Disruptions",
		// The first: Done, with the figures of status, in ms.
		"| a     | 0 StepDown at 30s  | Done (" + millis(float64(*d.Outcome.DurationMicros)) + " ms) |",
		millis(float64(d.WriteUnavailable.MaxMicros)) + " / " + millis(float64(d.WriteUnavailable.MedianMicros)),
		"| a     | 1 StepDown at 2m50s | NotReached",
	} {
		if !strings.Contains(squeeze(text), squeeze(want)) {
			t.Errorf("markdown lacks %q:\n%s", want, text)
		}
	}
	section := text[strings.Index(text, "## Disruptions"):]
	section = section[:strings.Index(section[3:], "## ")+3]
	if strings.Contains(section, "| load ") {
		t.Error("the load phase, without disruptions, has a disruption row")
	}

	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	var dis [][]string
	for _, r := range rows[1:] {
		if r[col("operation")] == RowDisruption {
			dis = append(dis, r)
		}
	}
	if len(dis) != 2 || dis[0][col("write_unavailable_max_us")] != strconv.FormatInt(d.WriteUnavailable.MaxMicros, 10) ||
		dis[1][col("outcome")] != "NotReached" || dis[1][col("retried")] != "" || dis[0][col("phase")] != "a" {
		t.Errorf("DISRUPTION rows %q", dis)
	}
}

// A study without disruptions has no Disruptions section, no DISRUPTION
// rows or columns, no disruptions in its JSON (its goldens, older than
// disruptions, say the rest).
func TestNoDisruptionsNoTrace(t *testing.T) {
	for _, name := range []string{"microsharding", "pool", "growth"} {
		s := sweepStudy(t, name)
		for _, f := range Formats() {
			var buf bytes.Buffer
			if err := Write(&buf, s, f, Options{}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), "isruption") || strings.Contains(buf.String(), RowDisruption) {
				t.Errorf("%s, %s: names disruptions", name, f)
			}
		}
		if len(s.DisruptionSeries()) != 0 {
			t.Errorf("%s: wants disruption series: %v", name, s.DisruptionSeries())
		}
	}
}

// The sweep along retryWrites compares each cell's disruptions across
// its three repetitions: the median of each figure, and its range.
func TestDisruptionSweepReport(t *testing.T) {
	s := sweepStudy(t, "failover")
	var md, c bytes.Buffer
	if err := Markdown(&md, s, Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "failover.md", md.Bytes())
	if err := CSV(&c, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "failover.csv", c.Bytes())
	golden(t, "failover-disruptions.json", jsonDisruptions(t, s))

	// Each cell's figures are the medians of its repetitions' status, by
	// internal/stats.
	for ci := range s.Cells {
		cell := &s.Cells[ci]
		var write, errs, retried []float64
		for _, r := range cell.Runs {
			d := resultOf(r.Run, "a").Disruptions[0]
			write = append(write, float64(d.WriteUnavailable.MaxMicros))
			var n int64
			for _, e := range d.Errors {
				n += e.Count
			}
			errs = append(errs, float64(n))
			retried = append(retried, float64(d.Retried))
		}
		if len(write) != 3 {
			t.Fatalf("cell %s: %d repetitions", cell.Name, len(write))
		}
		var cd *cellDisruption
		for i := range s.disruptions {
			if s.disruptions[i].Cell == cell && s.disruptions[i].Index == 0 {
				cd = &s.disruptions[i]
			}
		}
		if cd == nil || cd.Repetitions != 3 || cd.States[benchv1.DisruptionDone] != 3 || stats.Median(cd.Write.Max) != stats.Median(write) ||
			stats.Median(cd.Errors) != stats.Median(errs) || stats.Median(cd.RetriedAll) != stats.Median(retried) {
			t.Errorf("cell %s: %+v; repetitions' writes %v, errors %v, retried %v", cell.Name, cd, write, errs, retried)
		}
	}
	// The comparison along the axis: a column per value, a row per
	// figure, the median and the range of the repetitions.
	text := md.String()
	for _, want := range []string{"**Disruptions compared along retryWrites**", "| disruption \\ retryWrites",
		"| a: 0 StepDown at 30s, writes unavailable, max (ms)", "| a: 0 StepDown at 30s, errors", "| a: 0 StepDown at 30s, retried "} {
		if !strings.Contains(text, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// Errors: retryable writes make most of them succeed on their retry.
	on, off := s.disruptions[0], s.disruptions[2]
	if on.Cell.Name != "on" || off.Cell.Name != "off" || on.Index != 0 || off.Index != 0 {
		t.Fatalf("disruptions in order %s/%d, %s/%d", on.Cell.Name, on.Index, off.Cell.Name, off.Index)
	}
	if stats.Median(on.Errors) >= stats.Median(off.Errors) || stats.Median(on.RetriedAll) <= stats.Median(off.RetriedAll) {
		t.Errorf("errors on %v off %v, retried on %v off %v", on.Errors, off.Errors, on.RetriedAll, off.RetriedAll)
	}
}

// The HTML report of a run with disruptions marks them on its throughput
// and p99 over time from status; with the phase's merged result it also
// draws each disruption at 100 ms.
func TestDisruptionCharts(t *testing.T) {
	plain := failoverRun(t, false)
	charts, err := plain.charts()
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, c := range charts {
		titles = append(titles, c.Title)
	}
	want := []string{"Throughput over time: load (Load)", "Throughput over time: a (Run)", "p99 latency over time: a (Run)"}
	if !slices.Equal(titles, want) {
		t.Fatalf("charts %q, want %q", titles, want)
	}
	thr := chartTitled(t, charts, "Throughput over time: a (Run)")
	if !strings.Contains(thr.Note, marksNote) || strings.Contains(chartTitled(t, charts, "Throughput over time: load (Load)").Note, marksNote) {
		t.Errorf("notes: %q", thr.Note)
	}
	for _, c := range []chart{thr, chartTitled(t, charts, "p99 latency over time: a (Run)")} {
		// One instant (the other was not reached), labelled, and one window.
		if !strings.Contains(c.SVG, ">0 StepDown<") || strings.Contains(c.SVG, ">1 StepDown<") ||
			!strings.Contains(c.SVG, instantLegend) || !strings.Contains(c.SVG, windowLegend) {
			t.Errorf("%s: the disruption is not marked", c.Title)
		}
	}
	goldenAt(t, "testdata/failover-run-throughput.svg", []byte(thr.SVG+"\n"))

	s := failoverRun(t, true)
	if got := s.DisruptionSeries(); !slices.Equal(got, []RunPhase{{Run: "failover-0-r1", Phase: "a"}}) {
		t.Errorf("DisruptionSeries = %v", got)
	}
	charts, err = s.charts()
	if err != nil {
		t.Fatal(err)
	}
	zoom := chartTitled(t, charts, "Throughput around disruption 0 (StepDown at 30s): a (Run)")
	lat := chartTitled(t, charts, "p99 latency around disruption 0 (StepDown at 30s): a (Run)")
	if len(charts) != 5 || zoom.Note != zoomNote {
		t.Errorf("%d charts; zoom note %q", len(charts), zoom.Note)
	}
	goldenAt(t, "testdata/failover-run-zoom.svg", []byte(zoom.SVG+"\n"))
	if !strings.Contains(lat.SVG, "time from the disruption (s)") || !strings.Contains(lat.SVG, windowLegend) {
		t.Error("the p99 chart around the disruption lacks its axis or window")
	}
}

// The 100 ms lines follow the merged series: succeeded and failed
// operations per second and the p99 of the successes, x at each
// interval's end from the instant.
func TestZoomLines(t *testing.T) {
	_, runs := loadFixture(t, "failover")
	for _, run := range []*benchv1.BenchmarkRun{&runs[0], &runs[3]} {
		m := failoverMerged(run)
		d := &m.Disruptions[0]
		ok, failed, p99 := zoomLines(d)
		if len(ok) != len(d.Series.Points) || ok[0].X != -9.9 || ok[100].X != 0.1 {
			t.Fatalf("%s: %d points from %v", run.Name, len(ok), ok[0])
		}
		if (failed != nil) == run.Spec.Driver.RetryWrites {
			t.Errorf("%s (retryWrites %v): failed line %v", run.Name, run.Spec.Driver.RetryWrites, failed != nil)
		}
		p := d.Series.Points[0]
		var n, nf int64
		for _, o := range p.Ops {
			n += o.Count
			nf += o.Failed
		}
		if ok[0].Y != float64(n-nf)*10 {
			t.Errorf("%s: %v ops/s at the first point, want %d", run.Name, ok[0].Y, (n-nf)*10)
		}
		// While every loader waits, no success: no p99 point.
		for _, xy := range p99 {
			if xy.X > 0.1 && xy.X <= float64(*d.Loaders[1].WriteUnavailableMicros)/1e6-0.1 && xy.X <= float64(*d.Loaders[1].ReadUnavailableMicros)/1e6 {
				t.Errorf("%s: a p99 point at %v s, while nothing succeeded", run.Name, xy.X)
			}
		}
	}
}

// The excerpt docs/reports.md shows is the failover fixture's report,
// line for line.
func TestDocsShowTheDisruptionReport(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reports.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/failover.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## Disruptions\n")
	_, block, ok2 := strings.Cut(sec, "```text\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/reports.md has no Disruptions section with a text block")
	}
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) < 4 {
		t.Fatalf("the excerpt has %d lines", len(lines))
	}
	for _, l := range lines {
		if !strings.Contains(string(golden), l+"\n") {
			t.Errorf("docs/reports.md shows %q, which testdata/failover.md does not have", l)
		}
	}
}

// TestShardDisruptionLabel: a disruption of a shard or the config server
// is named with the replica set it hit in the report's tables, charts
// and JSON; one of the set the loaders reach by its action alone.
func TestShardDisruptionLabel(t *testing.T) {
	_, runs := loadFixture(t, "failover")
	runs[0].Status.Results[1].Disruptions[0].Target = "shard1"
	s := FromRun(&runs[0], nil)
	var md bytes.Buffer
	if err := Markdown(&md, s, Options{}); err != nil {
		t.Fatal(err)
	}
	if text := squeeze(md.String()); !strings.Contains(text, squeeze("| a     | 0 StepDown shard1 at 30s")) ||
		!strings.Contains(text, squeeze("| a     | 1 StepDown at 2m50s")) {
		t.Errorf("markdown does not name the target:\n%s", md.String())
	}
	if js := string(jsonDisruptions(t, s)); !strings.Contains(js, `"target": "shard1"`) {
		t.Errorf("JSON lacks the target:\n%s", js)
	}
}
