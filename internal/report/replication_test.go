package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestCSVReplicationLag: a run whose phases report a replication lag gets
// the max_replication_lag_ms column, filled on each phase's OVERALL row;
// studies without one keep their columns (the golden CSVs).
func TestCSVReplicationLag(t *testing.T) {
	run := &benchv1.BenchmarkRun{}
	run.Name = "rs3"
	run.Spec.Topology = benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet}
	run.Status.Phase = benchv1.RunSucceeded
	run.Status.Results = []benchv1.PhaseResult{
		{Name: "load", Type: benchv1.PhaseLoad, Operations: 10, OperationStats: []benchv1.OperationResult{{Name: "INSERT", Count: 10}},
			MaxReplicationLagMillis: ptr.To[int64](250)},
		{Name: "run", Type: benchv1.PhaseRun, Operations: 10, OperationStats: []benchv1.OperationResult{{Name: "READ", Count: 10}}},
	}
	var buf bytes.Buffer
	if err := CSV(&buf, FromRun(run, nil)); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "max_replication_lag_ms")
	if col < 0 {
		t.Fatalf("no max_replication_lag_ms in %v", rows[0])
	}
	phase, op := slices.Index(rows[0], "phase"), slices.Index(rows[0], "operation")
	got := map[string]string{}
	for _, r := range rows[1:] {
		got[r[phase]+"/"+r[op]] = r[col]
	}
	if got["load/OVERALL"] != "250" || got["load/INSERT"] != "" || got["run/OVERALL"] != "" {
		t.Errorf("lag column %v: want 250 on load's OVERALL row only", got)
	}
}

// withLag gives the phases after the first of every sharded cell of the
// microsharding fixture (their shards are replica sets) a replication
// lag, in the sweep's status and in the runs' as the controller would
// record them: 100 ms per cell index plus 10 per phase index. The
// standalone cell and every cell's first phase keep none.
func withLag(t *testing.T) (*benchv1.BenchmarkSweep, []benchv1.BenchmarkRun) {
	t.Helper()
	sw, runs := loadFixture(t, "microsharding")
	lag := func(cell int32, phase int) *int64 {
		if cell == 0 || phase == 0 {
			return nil
		}
		return ptr.To(int64(100*int(cell) + 10*phase))
	}
	for i := range sw.Status.Cells {
		c := &sw.Status.Cells[i]
		for j := range c.Results {
			c.Results[j].MaxReplicationLagMillis = lag(c.Index, j)
		}
	}
	for i := range runs {
		for _, c := range sw.Status.Cells {
			if !slices.ContainsFunc(c.Runs, func(r benchv1.SweepRunStatus) bool { return r.Name == runs[i].Name }) {
				continue
			}
			for j := range runs[i].Status.Results {
				runs[i].Status.Results[j].MaxReplicationLagMillis = lag(c.Index, j)
			}
		}
	}
	return sw, runs
}

// TestReportReplicationLag: a study whose phases have a replication lag
// gets a table of it per phase in Markdown and HTML, the cells without
// one "-", the phases without one left out; a run's report likewise. A
// study without (the microsharding golden) gets no such section.
func TestReportReplicationLag(t *testing.T) {
	const heading = "## Maximum replication lag (ms)"
	if md := mustMarkdown(t, sweepStudy(t, "microsharding")); bytes.Contains(md, []byte("replication lag")) {
		t.Errorf("a study without replication lag shows one:\n%s", md)
	}

	sw, runs := withLag(t)
	s, err := FromSweep(sw, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := mustMarkdown(t, s)
	golden(t, "microsharding-lag.md", md)
	_, sec, ok := bytes.Cut(md, []byte(heading))
	if !ok {
		t.Fatalf("no %q in\n%s", heading, md)
	}
	sec, _, _ = bytes.Cut(sec, []byte("\n## "))
	for _, want := range []string{"| S2 (Run)         |          - |      110 |      210 |      310 |      410 |",
		"| S5 (Run)         |          - |      140 |      240 |      340 |      440 |"} {
		if !bytes.Contains(sec, []byte(want)) {
			t.Errorf("lag section lacks %q:\n%s", want, sec)
		}
	}
	if bytes.Contains(sec, []byte("S1 (Load)")) || bytes.Contains(sec, []byte("%")) {
		t.Errorf("lag section shows S1, which has no lag, or a %% change:\n%s", sec)
	}
	var html bytes.Buffer
	if err := HTML(&html, s, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "Maximum replication lag (ms)") || !strings.Contains(html.String(), ">410<") {
		t.Errorf("the HTML report lacks the lag table")
	}

	// A run of the 2-shards cell: its own lag per phase.
	run := slices.IndexFunc(runs, func(r benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.RunSucceeded && len(r.Status.Results) > 1 && r.Status.Results[1].MaxReplicationLagMillis != nil &&
			*r.Status.Results[1].MaxReplicationLagMillis == 110
	})
	if run < 0 {
		t.Fatal("no succeeded run of the 2-shards cell")
	}
	rmd := mustMarkdown(t, FromRun(&runs[run], nil))
	golden(t, "run-lag.md", rmd)
	if !bytes.Contains(rmd, []byte(heading)) || !bytes.Contains(rmd, []byte("| S2 (Run) |                110 |")) {
		t.Errorf("the run's report lacks its lag:\n%s", rmd)
	}
}

// TestJSONReplicationLag: -o json carries the lag where status has it,
// the runs' phases and the sweep's cells.
func TestJSONReplicationLag(t *testing.T) {
	sw, runs := withLag(t)
	s, err := FromSweep(sw, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := JSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Sweep struct {
			Status benchv1.BenchmarkSweepStatus `json:"status"`
		} `json:"sweep"`
		Runs []struct {
			Status benchv1.BenchmarkRunStatus `json:"status"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	cellLag := map[string]int64{}
	for _, c := range got.Sweep.Status.Cells {
		for _, r := range c.Results {
			if r.MaxReplicationLagMillis != nil {
				cellLag[c.Name+"/"+r.Name] = *r.MaxReplicationLagMillis
			}
		}
	}
	if cellLag["8-shards/S5"] != 440 || len(cellLag) != 16 {
		t.Errorf("sweep cells' lag %v: want 16 phases, 8-shards/S5 440", cellLag)
	}
	runsWithLag := 0
	for _, r := range got.Runs {
		if slices.ContainsFunc(r.Status.Results, func(p benchv1.PhaseResult) bool { return p.MaxReplicationLagMillis != nil }) {
			runsWithLag++
		}
	}
	if runsWithLag == 0 {
		t.Error("no run's phases carry their lag in the JSON report")
	}
}
