package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// The chart's files this module generates and checks.
var (
	dashboardFile   = filepath.Join("..", "..", "charts", "mongobench", "dashboards", "mongobench.json")
	metricNamesFile = filepath.Join("..", "..", "charts", "mongobench", "dashboards", "metric-names.txt")
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGeneratedJSONIsUpToDate: the chart ships what this generator
// writes.
func TestGeneratedJSONIsUpToDate(t *testing.T) {
	got, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	if want := readFile(t, dashboardFile); !bytes.Equal(got, want) {
		t.Errorf("%s is not what hack/dashboard generates: run 'make dashboard' and commit it", dashboardFile)
	}
}

// decode reads the dashboard JSON back through the SDK's types and
// validates it. It is strict by a round trip: the SDK's decoder fails on a
// wrong type, and drops what its types do not know, so the dashboard must
// encode back to the same JSON tree. (v0.0.22's own UnmarshalJSONStrict
// cannot be used: its generated code returns its empty cog.BuildErrors as
// a non-nil error, which PanelOrRowPanel takes for a failure, so every
// panel is silently dropped.)
func decode(raw []byte) (Dashboard, error) {
	// The panel options and queries decode into their plugins' types only
	// once the plugins are registered (the SDK's README).
	plugins.RegisterDefaultPlugins()
	var d Dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, fmt.Errorf("decode: %w", err)
	}
	if err := d.Validate(); err != nil {
		return d, fmt.Errorf("validate: %w", err)
	}
	again, err := json.Marshal(d)
	if err != nil {
		return d, fmt.Errorf("encode: %w", err)
	}
	var before, after any
	if err := json.Unmarshal(raw, &before); err != nil {
		return d, err
	}
	if err := json.Unmarshal(again, &after); err != nil {
		return d, err
	}
	if !reflect.DeepEqual(before, after) {
		return d, errors.New("the SDK's types do not hold all of it: " + firstDifference("", before, after))
	}
	return d, nil
}

// firstDifference names the first JSON path where two decoded JSON trees
// differ.
func firstDifference(path string, a, b any) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return path
		}
		keys := slices.Sorted(maps.Keys(a))
		for k := range bm {
			if _, ok := a[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if !reflect.DeepEqual(a[k], bm[k]) {
				return firstDifference(path+"."+k, a[k], bm[k])
			}
		}
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return path
		}
		for i := range a {
			if !reflect.DeepEqual(a[i], bs[i]) {
				return firstDifference(path+"["+strconv.Itoa(i)+"]", a[i], bs[i])
			}
		}
	}
	return path
}

// TestJSONIsAValidDashboard: the checked-in JSON decodes into the SDK's
// dashboard types without losing anything, and validates.
func TestJSONIsAValidDashboard(t *testing.T) {
	raw := readFile(t, dashboardFile)
	d, err := decode(raw)
	if err != nil {
		t.Fatalf("%s is not a valid Grafana dashboard: %v", dashboardFile, err)
	}
	if d.Uid == nil || *d.Uid != dashboardUID || d.Id != nil {
		t.Errorf("uid %v, id %v: want uid %q and no id (Grafana assigns ids per instance)", d.Uid, d.Id, dashboardUID)
	}
	// Every panel decoded as what it is.
	n := 0
	for i, p := range d.Panels {
		switch {
		case p.RowPanel != nil:
		case p.Panel != nil && p.Panel.Type == "timeseries":
			if _, ok := p.Panel.Options.(*timeseries.Options); !ok {
				t.Errorf("panel %d: options decoded as %T", i, p.Panel.Options)
			}
			n++
		default:
			t.Errorf("panel %d decoded as neither a row nor a time series", i)
		}
	}
	if n < 10 {
		t.Errorf("only %d time series panels", n)
	}
	// The JSON goes into one ConfigMap, whose data is limited to 1 MiB;
	// keep far below.
	if len(raw) > 256<<10 {
		t.Errorf("%s is %d bytes", dashboardFile, len(raw))
	}
}

// TestStrictDecodingRejectsUnknownFields: decode fails on what a Grafana
// dashboard does not hold, so the validity test can fail.
func TestStrictDecodingRejectsUnknownFields(t *testing.T) {
	raw := readFile(t, dashboardFile)
	for name, bad := range map[string][]byte{
		"unknown dashboard field": bytes.Replace(raw, []byte(`"uid": "mongobench",`), []byte(`"uid": "mongobench", "uidd": "x",`), 1),
		"unknown query field":     bytes.Replace(raw, []byte(`"refId": "A"`), []byte(`"refId": "A", "exprr": "up"`), 1),
		"wrong type":              bytes.Replace(raw, []byte(`"refresh": "30s"`), []byte(`"refresh": 30`), 1),
	} {
		if bytes.Equal(bad, raw) {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		if _, err := decode(bad); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}

// exportedMetrics reads metric-names.txt: one metric name per line as a
// scrape shows it (a histogram's family name and its _bucket, _sum and
// _count series).
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	var last string
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, metricNamesFile)))
	for sc.Scan() {
		name := sc.Text()
		if !regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`).MatchString(name) {
			t.Fatalf("%s: %q is not a metric name", metricNamesFile, name)
		}
		if name <= last {
			t.Fatalf("%s: %q is not sorted after %q, or repeated", metricNamesFile, name, last)
		}
		names[name], last = true, name
	}
	if len(names) < 10 {
		t.Fatalf("%s lists only %d names", metricNamesFile, len(names))
	}
	return names
}

// promExpr is one PromQL expression of the dashboard and where it is.
type promExpr struct {
	where string
	expr  string
	// variables are the dashboard variables the expression must filter
	// by, as label=variable pairs.
	filters []*labels.Matcher
}

// The matchers every panel query's selectors carry: the dashboard's
// variables.
var (
	byNamespace = labels.MustNewMatcher(labels.MatchEqual, labelNamespace, "$"+varNamespace)
	byRun       = labels.MustNewMatcher(labels.MatchEqual, labelRun, "$"+varRun)
	byPhase     = labels.MustNewMatcher(labels.MatchRegexp, labelPhase, "$"+varPhase)
)

// labelValues is a Grafana Prometheus variable query, label_values(selector, label).
var labelValues = regexp.MustCompile(`^label_values\((.+), *([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// expressions returns every PromQL expression of the dashboard: each
// panel's targets, and the selectors of the variables' label_values
// queries.
func expressions(t *testing.T, d Dashboard) []promExpr {
	t.Helper()
	var out []promExpr
	var panels []dashboard.Panel
	for _, p := range d.Panels {
		if p.Panel != nil {
			panels = append(panels, *p.Panel)
		}
		if p.RowPanel != nil {
			panels = append(panels, p.RowPanel.Panels...)
		}
	}
	for _, p := range panels {
		if p.Datasource == nil || p.Datasource.Uid == nil || *p.Datasource.Uid != "${"+varDatasource+"}" {
			t.Errorf("panel %q does not use the data source variable", deref(p.Title))
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", deref(p.Title))
		}
		for _, target := range p.Targets {
			q, ok := target.(*prometheus.Dataquery)
			if !ok {
				t.Errorf("panel %q: a %T query, want Prometheus", deref(p.Title), target)
				continue
			}
			if q.Datasource == nil || q.Datasource.Uid == nil || *q.Datasource.Uid != "${"+varDatasource+"}" {
				t.Errorf("panel %q query %s does not use the data source variable", deref(p.Title), deref(q.RefId))
			}
			out = append(out, promExpr{
				where:   "panel " + deref(p.Title) + " query " + deref(q.RefId),
				expr:    q.Expr,
				filters: []*labels.Matcher{byNamespace, byRun, byPhase},
			})
		}
	}
	var names []string
	for _, v := range d.Templating.List {
		names = append(names, v.Name)
		if v.Type != dashboard.VariableTypeQuery {
			continue
		}
		if v.Query == nil || v.Query.String == nil {
			t.Errorf("variable %s has no query string", v.Name)
			continue
		}
		m := labelValues.FindStringSubmatch(*v.Query.String)
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(selector, label)", v.Name, *v.Query.String)
			continue
		}
		if m[2] != v.Name {
			t.Errorf("variable %s lists the values of label %s", v.Name, m[2])
		}
		// Each variable is narrowed by the ones before it.
		var filters []*labels.Matcher
		switch v.Name {
		case varRun:
			filters = []*labels.Matcher{byNamespace}
		case varPhase:
			filters = []*labels.Matcher{byNamespace, byRun}
		}
		out = append(out, promExpr{where: "variable " + v.Name, expr: m[1], filters: filters})
	}
	if want := []string{varDatasource, varNamespace, varRun, varPhase}; !slices.Equal(names, want) {
		t.Errorf("variables %v, want %v", names, want)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// grafanaDurations are Grafana's global variables that stand for a
// duration in PromQL, replaced by a duration before parsing.
var grafanaDurations = strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1h")

// check parses one expression with Prometheus' own parser, once Grafana's
// duration variables are replaced, and returns what is wrong with it: a
// metric not exported, a selector that ignores one of the dashboard's
// variables, classic buckets not summed by le. It also counts the
// selectors it saw.
func check(p parser.Parser, exported map[string]bool, e promExpr) (problems []string, selectors int) {
	src := grafanaDurations.Replace(e.expr)
	if strings.Contains(src, "$__") {
		return []string{"a Grafana variable this test does not know"}, 0
	}
	ast, err := p.ParseExpr(src)
	if err != nil {
		return []string{"does not parse: " + err.Error()}, 0
	}
	parser.Inspect(ast, func(node parser.Node, path []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		selectors++
		if vs.Name == "" {
			problems = append(problems, vs.String()+" has no metric name")
			return nil
		}
		if !exported[vs.Name] {
			problems = append(problems, vs.Name+" is not an exported metric ("+metricNamesFile+")")
		}
		for _, want := range e.filters {
			if !slices.ContainsFunc(vs.LabelMatchers, func(m *labels.Matcher) bool {
				return m.Name == want.Name && m.Type == want.Type && m.Value == want.Value
			}) {
				problems = append(problems, vs.String()+" does not filter by "+want.String())
			}
		}
		if strings.HasSuffix(vs.Name, "_bucket") && !groupedByLe(path) {
			problems = append(problems, "the classic buckets "+vs.String()+" are not summed by le")
		}
		return nil
	})
	return problems, selectors
}

// groupedByLe reports whether the innermost aggregation above a selector
// keeps the le label, as histogram_quantile over classic buckets needs.
func groupedByLe(path []parser.Node) bool {
	for i := len(path) - 1; i >= 0; i-- {
		if agg, ok := path[i].(*parser.AggregateExpr); ok {
			return !agg.Without && slices.Contains(agg.Grouping, "le")
		}
	}
	return false
}

// TestPromQLParsesAndSelectsExportedMetrics: every expression of the
// dashboard passes check.
func TestPromQLParsesAndSelectsExportedMetrics(t *testing.T) {
	exported := exportedMetrics(t)
	d, err := decode(readFile(t, dashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	exprs := expressions(t, d)
	p := parser.NewParser(parser.Options{})
	selectors := 0
	for _, e := range exprs {
		problems, n := check(p, exported, e)
		selectors += n
		for _, problem := range problems {
			t.Errorf("%s: %s: %s", e.where, e.expr, problem)
		}
	}
	// The dashboard's panels and query variables hold at least this many
	// selectors; fewer means this test stopped looking.
	if len(exprs) < 15 || selectors < 20 {
		t.Errorf("checked only %d expressions with %d selectors", len(exprs), selectors)
	}
}

// TestPromQLCheckFindsMistakes: check fails on PromQL that does not parse,
// a misspelt metric, a query that ignores a variable, classic buckets not
// grouped by le, and a Grafana variable it cannot replace.
func TestPromQLCheckFindsMistakes(t *testing.T) {
	exported := exportedMetrics(t)
	p := parser.NewParser(parser.Options{})
	all := []*labels.Matcher{byNamespace, byRun, byPhase}
	for name, expr := range map[string]string{
		"does not parse": `rate(mongobench_loader_threads{namespace="$namespace", run="$run", phase=~"$phase"}[$__rate_interval]`,
		"unknown metric": `rate(mongobench_loader_operation_total{namespace="$namespace", run="$run", phase=~"$phase"}[$__rate_interval])`,
		"no run filter":  `rate(mongobench_loader_operations_total{namespace="$namespace", phase=~"$phase"}[$__rate_interval])`,
		"phase by =":     `mongobench_loader_threads{namespace="$namespace", run="$run", phase="$phase"}`,
		"buckets by op":  `histogram_quantile(0.99, sum by (operation) (rate(mongobench_loader_operation_latency_seconds_bucket{namespace="$namespace", run="$run", phase=~"$phase"}[$__rate_interval])))`,
		"no name":        `{namespace="$namespace", run="$run", phase=~"$phase"}`,
		"unknown $__":    `rate(mongobench_loader_threads{namespace="$namespace", run="$run", phase=~"$phase"}[$__auto])`,
	} {
		if problems, _ := check(p, exported, promExpr{where: name, expr: expr, filters: all}); len(problems) == 0 {
			t.Errorf("%s: %s passes the checks", name, expr)
		}
	}
	good := `histogram_quantile(0.99, sum by (le, operation) (rate(mongobench_loader_operation_latency_seconds_bucket{namespace="$namespace", run="$run", phase=~"$phase"}[$__rate_interval])))`
	if problems, _ := check(p, exported, promExpr{where: "good", expr: good, filters: all}); len(problems) != 0 {
		t.Errorf("a correct query fails the checks: %v", problems)
	}
}
