package ycsb

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

var update = flag.Bool("update", false, "rewrite golden files")

func histOf(values ...int64) *results.Histogram {
	h := results.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	return h
}

func seq(from, to int64) []int64 {
	var out []int64
	for v := from; v <= to; v++ {
		out = append(out, v)
	}
	return out
}

func goldenResult() *RunResult {
	var readStatus, updateStatus, cleanupStatus StatusCounts
	readStatus[StatusOK] = 1000
	readStatus[StatusNotFound] = 2
	updateStatus[StatusOK] = 500
	cleanupStatus[StatusOK] = 2
	return &RunResult{
		RuntimeMillis: 10110,
		Operations:    1000000,
		Ops: []OpMeasurement{
			{Op: OpRead, Statuses: readStatus, OK: histOf(seq(100, 1099)...), Failed: histOf(5000, 7000)},
			{Op: OpUpdate, Statuses: updateStatus, OK: histOf(seq(1, 500)...), Failed: results.NewHistogram()},
			{Op: OpCleanup, Statuses: cleanupStatus, OK: histOf(2184, 2185), Failed: results.NewHistogram()},
		},
	}
}

func TestWriteTextGolden(t *testing.T) {
	for name, pct := range map[string][]float64{
		"report.golden":             {95, 99},
		"report_percentiles.golden": {1, 2, 3, 11, 50, 99.9, 99.99},
	} {
		var buf bytes.Buffer
		if err := WriteText(&buf, goldenResult(), pct); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s differs:\n%s\nwant:\n%s", name, buf.String(), want)
		}
	}
}

func TestPercentileNames(t *testing.T) {
	for p, want := range map[float64]string{
		95: "95th", 99: "99th", 50: "50th", 1: "1st", 2: "2nd", 3: "3rd", 11: "11th", 12: "12th", 13: "13th",
		21: "21st", 22: "22nd", 100: "100th", 99.9: "99.9", 99.99: "99.99", 0: "0th",
	} {
		if got := percentileName(p); got != want+"PercentileLatency(us)" {
			t.Errorf("percentileName(%v) = %q", p, got)
		}
	}
	if _, err := ParsePercentiles("95,x"); err == nil {
		t.Error("bad percentile accepted")
	}
	if got, err := ParsePercentiles(" 50, 99.9 "); err != nil || len(got) != 2 || got[1] != 99.9 {
		t.Errorf("ParsePercentiles = %v, %v", got, err)
	}
	p, _ := PercentilesFromProperties(NewProperties())
	if len(p) != 2 || p[0] != 95 || p[1] != 99 {
		t.Errorf("default percentiles %v, want YCSB 0.17.0's 95,99", p)
	}
}

func TestStatusLineFormat(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 0, 10, 123e6, time.Local)
	start := now.Add(-10 * time.Second).UnixMilli()
	got := statusLine("", now, start, start, start+10000, 67169, 0, 6_800_000, "[INSERT: Count=1] ")
	want := "2026-01-01 10:00:10:123 10 sec: 67169 operations; 6716.9 current ops/sec; est completion in 16 minutes [INSERT: Count=1] "
	if got != want {
		t.Errorf("status line\n%q\nwant\n%q", got, want)
	}
	// At the start: no operations, nothing to estimate from (Java: NaN -> 0).
	got = statusLine("L ", now, start, start, start, 0, 0, 100, "")
	if want := "L 2026-01-01 10:00:10:123 0 sec: 0 operations; est completion in 0 seconds "; got != want {
		t.Errorf("start line %q, want %q", got, want)
	}
	// Unlimited runs (no ops to do) print no estimate.
	got = statusLine("", now, start, start+5000, start+10000, 100, 50, 0, "")
	if want := "2026-01-01 10:00:10:123 10 sec: 100 operations; 10 current ops/sec; "; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

func TestFormatRemaining(t *testing.T) {
	for s, want := range map[int64]string{
		0:      "0 seconds ",
		1:      "1 seconds ",
		59:     "59 seconds ",
		60:     "1 minute ",
		61:     "1 minute ",
		3600:   "1 hour ",
		7322:   "2 hours 2 minutes ",
		86400:  "1 day ",
		190000: "2 days 4 hours ",
	} {
		if got := formatRemaining(s); got != want {
			t.Errorf("formatRemaining(%d) = %q, want %q", s, got, want)
		}
	}
}
