package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// The dashboard's identity: a fixed uid so that a new chart version
// replaces the dashboard the sidecar provisioned before instead of adding a
// second one.
const (
	dashboardUID   = "mongobench"
	dashboardTitle = "mongobench"
)

// Variable names. Every panel query filters by namespace, run and phase;
// the data source is a variable so the dashboard works in any Grafana,
// whatever its Prometheus data source is called.
const (
	varDatasource = "datasource"
	varNamespace  = "namespace"
	varRun        = "run"
	varPhase      = "phase"
)

// rateInterval is Grafana's range for rate(): at least four scrape
// intervals of the data source, so a rate never rests on one sample.
const rateInterval = "$__rate_interval"

// Grid sizes (Grafana's grid is 24 columns wide).
const (
	panelHeight = 8
	fullWidth   = 24
	halfWidth   = 12
	thirdWidth  = 8
	quarter     = 6
)

// latencyQuantiles are the latency panels' quantiles and titles.
var latencyQuantiles = []struct {
	q     string
	title string
}{
	{"0.5", "p50"},
	{"0.99", "p99"},
	{"0.999", "p99.9"},
}

// datasourceRef points panels, queries and variables at the data source
// variable.
func datasourceRef() common.DataSourceRef {
	return common.DataSourceRef{
		Type: cog.ToPtr("prometheus"),
		Uid:  cog.ToPtr("${" + varDatasource + "}"),
	}
}

// loaderSelector selects metric for the chosen namespace, run and phases,
// with extra matchers (e.g. `result="ok"`). Loader 0's server metrics carry
// the same labels, so it serves them too.
func loaderSelector(metric string, extra ...string) string {
	matchers := append([]string{
		fmt.Sprintf(`%s="$%s"`, labelNamespace, varNamespace),
		fmt.Sprintf(`%s="$%s"`, labelRun, varRun),
		// =~: the phase variable takes several values, or All (.*).
		fmt.Sprintf(`%s=~"$%s"`, labelPhase, varPhase),
	}, extra...)
	return metric + "{" + strings.Join(matchers, ", ") + "}"
}

// rate is rate(selector[$__rate_interval]).
func rate(selector string) string {
	return "rate(" + selector + "[" + rateInterval + "])"
}

// by is `op by (labels) (expr)`.
func by(op string, expr string, labels ...string) string {
	return op + " by (" + strings.Join(labels, ", ") + ") (" + expr + ")"
}

// legend is a Grafana legend template of label values, e.g. "{{phase}} {{operation}}".
func legend(labels ...string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = "{{" + l + "}}"
	}
	return strings.Join(parts, " ")
}

// query is one PromQL target of a panel.
func query(refID, expr, legendFormat string) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().
		RefId(refID).
		Datasource(datasourceRef()).
		Expr(expr).
		LegendFormat(legendFormat).
		Range()
}

// graph is a time series panel with the dashboard's common settings:
// the data source variable, a table legend with the last and the highest
// value, and a tooltip listing every series.
func graph(id uint32, title, description, unit string, width uint32) *timeseries.PanelBuilder {
	return timeseries.NewPanelBuilder().
		Id(id).
		Title(title).
		Description(description).
		Datasource(datasourceRef()).
		Unit(unit).
		Min(0).
		Span(width).
		Height(panelHeight).
		FillOpacity(5).
		Legend(common.NewVizLegendOptionsBuilder().
			ShowLegend(true).
			DisplayMode(common.LegendDisplayModeTable).
			Placement(common.LegendPlacementBottom).
			Calcs([]string{"lastNotNull", "max"})).
		Tooltip(common.NewVizTooltipOptionsBuilder().
			Mode(common.TooltipDisplayModeMulti).
			Sort(common.SortOrderDescending))
}

// latencyQuery is the q-quantile of the service time of successful
// operations, by phase and operation. The loaders export a native
// histogram with classic buckets as a fallback, and which of the two
// Prometheus keeps depends on its configuration (native histograms are
// scraped only when enabled; the classic buckets then only with
// scrapeClassicHistograms). The left side reads the native histogram, the
// right side the classic buckets; `or` keeps the right side's series only
// where the left has none with the same phase and operation, so the query
// answers under either configuration and prefers the native histogram's
// finer buckets.
func latencyQuery(q string) string {
	ok := labelResult + `="` + resultOK + `"`
	native := by("sum", rate(loaderSelector(loaderLatency, ok)), labelPhase, labelOperation)
	classic := by("sum", rate(loaderSelector(loaderLatency+"_bucket", ok)), "le", labelPhase, labelOperation)
	return "histogram_quantile(" + q + ", " + native + ") or histogram_quantile(" + q + ", " + classic + ")"
}

// variables returns the dashboard's variables: the data source, then
// namespace, run and phase, each listing the values the loaders report
// within the dashboard's time range, narrowed by the variables before it.
func variables() []cog.Builder[dashboard.VariableModel] {
	labelValues := func(name, label, selector, description string) *dashboard.QueryVariableBuilder {
		q := "label_values(" + selector + ", " + label + ")"
		return dashboard.NewQueryVariableBuilder(name).
			Label(label).
			Description(description).
			Datasource(datasourceRef()).
			Query(dashboard.StringOrMap{String: cog.ToPtr(q)}).
			Definition(q).
			// The values change as runs and phases start: list them
			// again whenever the time range changes.
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
			Sort(dashboard.VariableSortAlphabeticalAsc)
	}
	ns := fmt.Sprintf(`%s="$%s"`, labelNamespace, varNamespace)
	run := fmt.Sprintf(`%s="$%s"`, labelRun, varRun)
	return []cog.Builder[dashboard.VariableModel]{
		dashboard.NewDatasourceVariableBuilder(varDatasource).
			Label("Data source").
			Description("The Prometheus that scrapes the loaders (the chart's PodMonitor).").
			Type("prometheus"),
		labelValues(varNamespace, labelNamespace, loaderThreads,
			"The namespace of the BenchmarkRun."),
		labelValues(varRun, labelRun, loaderThreads+"{"+ns+"}",
			"The BenchmarkRun."),
		labelValues(varPhase, labelPhase, loaderThreads+"{"+ns+", "+run+"}",
			"The run's phases (spec.phases[].name in lower case). All also matches phases that start after the list was loaded.").
			Multi(true).
			IncludeAll(true).
			AllValue(".*").
			// All by default: Grafana would otherwise select the first
			// phase only.
			Current(dashboard.VariableOption{
				Selected: cog.ToPtr(true),
				Text:     dashboard.StringOrArrayOfString{ArrayOfString: []string{"All"}},
				Value:    dashboard.StringOrArrayOfString{ArrayOfString: []string{"$__all"}},
			}),
	}
}

// Dashboard is the classic dashboard JSON model (schemaVersion 42), which
// the SDK marks deprecated in favour of dashboardv2: that one is the spec
// of Grafana 12's dashboard.grafana.app/v2 API resources (elements and
// layouts), which Grafana's file provisioning, and so the dashboard
// sidecar, does not read; every Grafana the sidecar feeds loads the classic
// model.
type Dashboard = dashboard.Dashboard //nolint:staticcheck // SA1019: the classic model is what provisioning reads, see above.

// Build returns the dashboard.
func Build() (Dashboard, error) {
	ok := labelResult + `="` + resultOK + `"`
	failed := labelResult + `="` + resultError + `"`
	phaseOp := []string{labelPhase, labelOperation}

	//nolint:staticcheck // SA1019: the classic model, see Dashboard.
	b := dashboard.NewDashboardBuilder(dashboardTitle).
		Uid(dashboardUID).
		Description("A mongobench BenchmarkRun while it runs: what its YCSB loaders measure, "+
			"and the MongoDB server telemetry its loader 0 samples. Needs the chart's PodMonitor (metrics.podMonitor.enabled). "+
			"The run's status and reports remain the record: a phase shorter than a few scrape intervals may not show here.").
		Tags([]string{"mongobench", "mongodb", "benchmark"}).
		Editable().
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Time("now-1h", "now").
		Timezone(common.TimeZoneBrowser).
		Refresh("30s").
		Variables(variables())

	b.WithRow(dashboard.NewRowBuilder("Loaders").Id(1))

	b.WithPanel(graph(2, "Throughput",
		"Successful operations per second of all the run's loaders, by phase and YCSB operation: "+
			"rate(mongobench_loader_operations_total{result=\"ok\"}), the warm-up included. "+
			"The dashed line is a throttled phase's target rate (the sum of the loaders' mongobench_loader_target_operations_per_second); unthrottled phases have none.",
		"ops", halfWidth).
		WithTarget(query("A", by("sum", rate(loaderSelector(loaderOperations, ok)), phaseOp...), legend(phaseOp...))).
		WithTarget(query("B", by("sum", loaderSelector(loaderTarget), labelPhase)+" > 0", legend(labelPhase)+" target")).
		OverrideByQuery("B", []dashboard.DynamicConfigValue{{
			Id:    "custom.lineStyle",
			Value: map[string]any{"fill": "dash", "dash": []int{10, 10}},
		}}))

	b.WithPanel(graph(3, "Errors",
		"Failed operations per second by phase and operation (mongobench_loader_operations_total{result=\"error\"}, YCSB's <OP>-FAILED), "+
			"and inserts the loaders gave up on (mongobench_loader_lost_inserts_total).",
		"ops", quarter).
		WithTarget(query("A", by("sum", rate(loaderSelector(loaderOperations, failed)), phaseOp...), legend(phaseOp...)+" errors")).
		WithTarget(query("B", by("sum", rate(loaderSelector(loaderLostInserts)), labelPhase), legend(labelPhase)+" lost inserts")))

	b.WithPanel(graph(4, "Loaders and threads",
		"Per phase: the loaders serving metrics, their client threads (mongobench_loader_threads), "+
			"how many have finished their warm-up (mongobench_loader_measuring) and how many have finished "+
			"(mongobench_loader_finished; a finished loader serves its final values until its pod exits).",
		"short", quarter).
		Decimals(0).
		WithTarget(query("A", by("count", loaderSelector(loaderThreads), labelPhase), legend(labelPhase)+" loaders")).
		WithTarget(query("B", by("sum", loaderSelector(loaderThreads), labelPhase), legend(labelPhase)+" threads")).
		WithTarget(query("C", by("sum", loaderSelector(loaderMeasuring), labelPhase), legend(labelPhase)+" measuring")).
		WithTarget(query("D", by("sum", loaderSelector(loaderFinished), labelPhase), legend(labelPhase)+" finished")))

	for i, lq := range latencyQuantiles {
		b.WithPanel(graph(uint32(5+i), "Latency "+lq.title,
			"The "+lq.title+" service time of successful operations by phase and operation, over the rate interval, from mongobench_loader_operation_latency_seconds. "+
				"The query reads the native histogram when Prometheus scrapes native histograms, and otherwise the classic buckets "+
				"(sum by (le, phase, operation) (rate(mongobench_loader_operation_latency_seconds_bucket[$__rate_interval]))), whose resolution is coarser. "+
				"The run's status holds the exact percentiles of the measured part of each phase.",
			"s", thirdWidth).
			WithTarget(query("A", latencyQuery(lq.q), legend(phaseOp...))))
	}

	b.WithRow(dashboard.NewRowBuilder("MongoDB server (sampled by loader 0)").Id(10))

	// max, not sum, over loaders: when one phase ends and the next
	// begins, both phases' loader 0 may sample the same process for a
	// moment, and its counters would count twice.
	b.WithPanel(graph(11, "Server operations",
		"Operations per second the MongoDB processes executed, by process and type "+
			"(serverStatus opcounters, mongobench_server_operations_total). Loader 0 samples them while a phase measures.",
		"ops", halfWidth).
		WithTarget(query("A", by("max", rate(loaderSelector(serverOperations)), labelProcess, labelType), legend(labelProcess, labelType))))

	// Gauges use max, not sum: when a phase ends its loader 0 serves its
	// final values until its pod exits, and may overlap the next phase's.
	b.WithPanel(graph(12, "Connections",
		"Current client connections of each MongoDB process (serverStatus connections.current, mongobench_server_connections).",
		"short", quarter).
		Decimals(0).
		WithTarget(query("A", by("max", loaderSelector(serverConnections), labelProcess), legend(labelProcess))))

	b.WithPanel(graph(13, "WiredTiger cache",
		"Bytes in the WiredTiger cache (used) and its dirty bytes, as a fraction of the configured cache size, per process "+
			"(mongobench_server_cache_used_ratio, mongobench_server_cache_dirty_ratio).",
		"percentunit", quarter).
		Max(1).
		WithTarget(query("A", by("max", loaderSelector(serverCacheUsed), labelProcess), legend(labelProcess)+" used")).
		WithTarget(query("B", by("max", loaderSelector(serverCacheDirty), labelProcess), legend(labelProcess)+" dirty")))

	b.WithPanel(graph(14, "Queues and tickets",
		"Operations queued for the global lock (readers, writers; mongobench_server_queued_operations) "+
			"and execution tickets in use (read, write; mongobench_server_tickets_out), per process.",
		"short", halfWidth).
		Decimals(0).
		WithTarget(query("A", by("max", loaderSelector(serverQueued), labelProcess, labelKind), legend(labelProcess)+" queued "+legend(labelKind))).
		WithTarget(query("B", by("max", loaderSelector(serverTicketsOut), labelProcess, labelKind), legend(labelProcess)+" tickets out "+legend(labelKind))))

	b.WithPanel(graph(15, "Network",
		"Bytes per second each MongoDB process received (in) and sent (out) (serverStatus network, mongobench_server_network_bytes_total).",
		"Bps", halfWidth).
		WithTarget(query("A", by("max", rate(loaderSelector(serverNetwork)), labelProcess, labelDirection), legend(labelProcess, labelDirection))))

	d, err := b.Build()
	if err != nil {
		return Dashboard{}, fmt.Errorf("build the dashboard: %w", err)
	}
	return d, nil
}

// Render returns the dashboard's JSON as the chart ships it: indented,
// with a final newline.
func Render() ([]byte, error) {
	d, err := Build()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("encode the dashboard: %w", err)
	}
	return buf.Bytes(), nil
}
