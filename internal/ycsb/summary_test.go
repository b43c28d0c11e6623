package ycsb

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// A Summary built by hand (as the kubectl plugin builds one from stored
// status) prints exactly what the run's own report prints.
func TestWriteTextSummaryMatchesRunResult(t *testing.T) {
	r := goldenResult()
	pct := []float64{95, 99}
	var want bytes.Buffer
	if err := WriteText(&want, r, pct); err != nil {
		t.Fatal(err)
	}
	s := &TextSummary{
		RuntimeMillis: 10110,
		Operations:    1000000,
		Ops: []OpSummary{
			{
				Name:    "READ",
				OK:      LatencySummary{1000, 599.5, 100, 1099, []PercentileValue{{95, 1049}, {99, 1089}}},
				Failed:  &LatencySummary{2, 6002, 5000, 7003, []PercentileValue{{95, 7003}, {99, 7003}}},
				Returns: SortedStatusCounts(map[string]int64{"NOT_FOUND": 2, "OK": 1000}),
			},
			{
				Name:    "UPDATE",
				OK:      LatencySummary{500, 250.5, 1, 500, []PercentileValue{{95, 475}, {99, 495}}},
				Returns: SortedStatusCounts(map[string]int64{"OK": 500}),
			},
			{
				Name:    "CLEANUP",
				OK:      LatencySummary{2, 2185, 2184, 2185, []PercentileValue{{95, 2185}, {99, 2185}}},
				Returns: SortedStatusCounts(map[string]int64{"OK": 2}),
			},
		},
	}
	var got bytes.Buffer
	if err := WriteTextSummary(&got, s); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("summary report:\n%s\nwant:\n%s", got.String(), want.String())
	}
	if rs := r.TextSummary(pct); !reflect.DeepEqual(rs, s) {
		t.Errorf("RunResult.TextSummary = %+v\nwant %+v", rs, s)
	}
}

// Without failure latencies (Failed nil) the -FAILED block is left out,
// while the Return lines still count the failures.
func TestWriteTextSummaryWithoutFailedBlock(t *testing.T) {
	s := &TextSummary{RuntimeMillis: 1000, Operations: 3, FailedBufferedInserts: 4, Ops: []OpSummary{{
		Name:    "INSERT",
		OK:      LatencySummary{Operations: 1, AverageMicros: 10, MinMicros: 10, MaxMicros: 10},
		Returns: SortedStatusCounts(map[string]int64{"ERROR": 2, "OK": 1}),
	}, {
		// Every operation failed: the OK block is still printed, as YCSB does.
		Name:    "READ",
		Returns: []StatusCount{{"ERROR", 1}},
	}}}
	var got bytes.Buffer
	if err := WriteTextSummary(&got, s); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"[OVERALL], RunTime(ms), 1000",
		"[OVERALL], Throughput(ops/sec), 3.0",
		"[INSERT], Operations, 1",
		"[INSERT], AverageLatency(us), 10.0",
		"[INSERT], MinLatency(us), 10",
		"[INSERT], MaxLatency(us), 10",
		"[INSERT], Return=OK, 1",
		"[INSERT], Return=ERROR, 2",
		"[READ], Operations, 0",
		"[READ], AverageLatency(us), 0.0",
		"[READ], MinLatency(us), 0",
		"[READ], MaxLatency(us), 0",
		"[READ], Return=ERROR, 1",
		"[INSERT], FailedBufferedInserts, 4",
	}, "\n") + "\n"
	if got.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", got.String(), want)
	}
}

func TestSortedStatusCounts(t *testing.T) {
	got := SortedStatusCounts(map[string]int64{
		"ZZZ_UNKNOWN": 1, "BATCHED_OK": 5, "NOT_FOUND": 2, "OK": 7, "ERROR": 3, "AAA_UNKNOWN": 4, "FORBIDDEN": 0,
	})
	want := []StatusCount{{"OK", 7}, {"ERROR", 3}, {"NOT_FOUND", 2}, {"BATCHED_OK", 5}, {"AAA_UNKNOWN", 4}, {"ZZZ_UNKNOWN", 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SortedStatusCounts = %v, want %v", got, want)
	}
}

// The report rebuilt from the stored result format, after the round trip
// through its encoding, is the loader's own report: the controller keeps
// it for every phase from the merged results.
func TestResultTextSummaryMatchesRunResult(t *testing.T) {
	r := goldenResult()
	r.Phase, r.LoaderCount, r.Threads = PhaseRun, 1, 4
	r.Start = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	r.End = r.Start.Add(time.Duration(r.RuntimeMillis) * time.Millisecond)
	r.StopReason = results.StopCompleted
	for _, pct := range [][]float64{{95, 99}, {1, 50, 99.9, 99.99}} {
		var want bytes.Buffer
		if err := WriteText(&want, r, pct); err != nil {
			t.Fatal(err)
		}
		enc, err := results.Encode(r.ToResult("loader-0"))
		if err != nil {
			t.Fatal(err)
		}
		stored, err := results.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteTextSummary(&got, ResultTextSummary(stored, pct)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("percentiles %v: report from the stored result:\n%s\nwant:\n%s", pct, got.String(), want.String())
		}
	}
}
