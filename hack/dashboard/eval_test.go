package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/prometheus/prometheus/model/timestamp"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/promqltest"
)

// The series a loader 0 of run ns/r, phase "run", exports, in promqltest's
// load notation (one sample every 15 s for 10 minutes), by what they are.
const (
	loaderLabels = `namespace="ns", run="r", phase="run", loader="0"`

	loaderSeries = `
  mongobench_loader_operations_total{` + loaderLabels + `, operation="READ", result="ok"} 0+100x40
  mongobench_loader_operations_total{` + loaderLabels + `, operation="READ", result="error"} 0+1x40
  mongobench_loader_target_operations_per_second{` + loaderLabels + `} 500x40
  mongobench_loader_threads{` + loaderLabels + `} 8x40
  mongobench_loader_measuring{` + loaderLabels + `} 1x40
  mongobench_loader_finished{` + loaderLabels + `} 0x40
  mongobench_loader_lost_inserts_total{` + loaderLabels + `} 0+1x40
  mongobench_server_operations_total{` + loaderLabels + `, process="r-0", type="query"} 0+50x40
  mongobench_server_connections{` + loaderLabels + `, process="r-0"} 10x40
  mongobench_server_cache_used_ratio{` + loaderLabels + `, process="r-0"} 0.5x40
  mongobench_server_cache_dirty_ratio{` + loaderLabels + `, process="r-0"} 0.05x40
  mongobench_server_tickets_out{` + loaderLabels + `, process="r-0", kind="read"} 3x40
  mongobench_server_queued_operations{` + loaderLabels + `, process="r-0", kind="readers"} 1x40
  mongobench_server_network_bytes_total{` + loaderLabels + `, process="r-0", direction="in"} 0+1000x40
`
	// Half the operations under 1 ms, the rest under 10 ms, as classic
	// buckets.
	classicLatency = `
  mongobench_loader_operation_latency_seconds_bucket{` + loaderLabels + `, operation="READ", result="ok", le="0.001"} 0+10x40
  mongobench_loader_operation_latency_seconds_bucket{` + loaderLabels + `, operation="READ", result="ok", le="0.01"} 0+20x40
  mongobench_loader_operation_latency_seconds_bucket{` + loaderLabels + `, operation="READ", result="ok", le="+Inf"} 0+20x40
  mongobench_loader_operation_latency_seconds_count{` + loaderLabels + `, operation="READ", result="ok"} 0+20x40
  mongobench_loader_operation_latency_seconds_sum{` + loaderLabels + `, operation="READ", result="ok"} 0+0.05x40
`
	// The same as a native histogram (schema 0: bucket i holds
	// (2^(i-1), 2^i] seconds; offset -10 starts at (0.49 ms, 0.98 ms]).
	nativeLatency = `
  mongobench_loader_operation_latency_seconds{` + loaderLabels + `, operation="READ", result="ok"} {{schema:0 count:0 sum:0}}+{{schema:0 count:20 sum:0.05 offset:-10 buckets:[10 5 5]}}x40
`
)

// substitute replaces the dashboard's variables as Grafana would for run
// ns/r with the phase variable on All.
var substitute = strings.NewReplacer(
	"$"+varNamespace, "ns",
	"$"+varRun, "r",
	"$"+varPhase, ".*",
	rateInterval, "1m",
)

// panelTargets returns the dashboard's panels' Prometheus queries by
// panel title.
func panelTargets(t *testing.T) map[string][]*prometheus.Dataquery {
	t.Helper()
	d, err := decode(readFile(t, dashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*prometheus.Dataquery{}
	for _, p := range d.Panels {
		if p.Panel == nil {
			continue
		}
		for _, target := range p.Panel.Targets {
			if q, ok := target.(*prometheus.Dataquery); ok {
				out[deref(p.Panel.Title)] = append(out[deref(p.Panel.Title)], q)
			}
		}
	}
	return out
}

// evaluate runs expr at minute 9 of the loaded series.
func evaluate(t *testing.T, series, expr string) promql.Vector {
	t.Helper()
	// A blank line would end promqltest's load command.
	var lines []string
	for _, l := range strings.Split(series, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	storage := promqltest.LoadedStorage(t, "load 15s\n"+strings.Join(lines, "\n"))
	engine := promqltest.NewTestEngine(t, false, 5*time.Minute, 1_000_000)
	q, err := engine.NewInstantQuery(context.Background(), storage, nil, expr, timestamp.Time(9*60*1000))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	defer q.Close()
	res := q.Exec(context.Background())
	if res.Err != nil {
		t.Fatalf("%s: %v", expr, res.Err)
	}
	v, err := res.Vector()
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

var legendLabel = regexp.MustCompile(`\{\{ *([a-zA-Z_][a-zA-Z0-9_]*) *\}\}`)

// TestEveryQueryAnswers: with a loader 0's series as the contract
// describes them, every panel query returns series carrying the labels its
// legend names.
func TestEveryQueryAnswers(t *testing.T) {
	targets := panelTargets(t)
	if len(targets) < 10 {
		t.Fatalf("only %d panels with queries", len(targets))
	}
	for title, qs := range targets {
		for _, q := range qs {
			v := evaluate(t, loaderSeries+classicLatency, substitute.Replace(q.Expr))
			if len(v) == 0 {
				t.Errorf("panel %q query %s returns nothing: %s", title, deref(q.RefId), q.Expr)
			}
			for _, s := range v {
				for _, m := range legendLabel.FindAllStringSubmatch(deref(q.LegendFormat), -1) {
					if !s.Metric.Has(m[1]) {
						t.Errorf("panel %q query %s: its legend names %s, the series %s lacks it", title, deref(q.RefId), m[1], s.Metric)
					}
				}
			}
		}
	}
}

// TestLatencyQueriesReadEitherHistogram: the latency panels answer whether
// Prometheus keeps the classic buckets, the native histogram, or both
// (then once per phase and operation).
func TestLatencyQueriesReadEitherHistogram(t *testing.T) {
	targets := panelTargets(t)
	for _, lq := range latencyQuantiles {
		title := "Latency " + lq.title
		if len(targets[title]) != 1 {
			t.Fatalf("panel %q: %d queries, want 1", title, len(targets[title]))
		}
		expr := substitute.Replace(targets[title][0].Expr)
		for name, series := range map[string]string{
			"classic": classicLatency,
			"native":  nativeLatency,
			"both":    classicLatency + nativeLatency,
		} {
			v := evaluate(t, series, expr)
			if len(v) != 1 {
				t.Errorf("%s, %s histogram: %d series, want 1: %v", title, name, len(v), v)
				continue
			}
			s := v[0]
			if s.Metric.Get(labelPhase) != "run" || s.Metric.Get(labelOperation) != "READ" || s.Metric.Len() != 2 {
				t.Errorf("%s, %s histogram: labels %s, want phase and operation", title, name, s.Metric)
			}
			if s.H != nil || !(s.F > 0 && s.F <= 0.01) {
				t.Errorf("%s, %s histogram: %v, want a latency in (0, 10 ms]", title, name, s)
			}
		}
	}
}
