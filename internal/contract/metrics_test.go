package contract

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/testutil/golden"
)

var update = flag.Bool("update", false, "rewrite charts/mongobench/dashboards/metric-names.txt from the Metric* constants")

// metricNamesFile lists every metric family the loaders and the manager
// export, one name per line as a scrape shows it; the dashboard's tests
// (hack/dashboard) check every PromQL selector against it.
var metricNamesFile = filepath.Join("..", "..", "charts", "mongobench", "dashboards", "metric-names.txt")

// histograms are the histogram families among the Metric* constants: a
// text scrape shows their _bucket, _sum and _count series, and PromQL
// selects a native histogram by the family's name.
var histograms = map[string]bool{
	MetricLoaderLatency:         true,
	MetricLoaderIntendedLatency: true,
}

// metricConstants returns the name and value of every metric name constant
// in metrics.go (Metric*, not MetricLabel* nor the port's Metrics*), and
// whether its doc comment calls it a histogram.
func metricConstants(t *testing.T) map[string]struct {
	value     string
	histogram bool
} {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "metrics.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]struct {
		value     string
		histogram bool
	}{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				n := name.Name
				if !strings.HasPrefix(n, "Metric") || strings.HasPrefix(n, "MetricLabel") || strings.HasPrefix(n, "Metrics") {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s is not a string literal", n)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out[n] = struct {
					value     string
					histogram bool
				}{v, strings.Contains(vs.Doc.Text(), "(histogram")}
			}
		}
	}
	return out
}

// TestMetricNamesFile: metric-names.txt holds exactly the contract's
// metric names, histograms expanded as a scrape shows them.
func TestMetricNamesFile(t *testing.T) {
	consts := metricConstants(t)
	if len(consts) < 25 {
		t.Fatalf("found only %d metric constants in metrics.go", len(consts))
	}
	var names []string
	for n, c := range consts {
		if !strings.HasPrefix(c.value, "mongobench_") {
			t.Errorf("%s = %q lacks the mongobench_ prefix", n, c.value)
		}
		// The doc comments say which families are histograms; the map
		// above must agree, since it decides the suffixes.
		if c.histogram != histograms[c.value] {
			t.Errorf("%s: its doc comment says histogram=%v, the test's histograms map %v", n, c.histogram, histograms[c.value])
		}
		names = append(names, c.value)
		if histograms[c.value] {
			names = append(names, c.value+"_bucket", c.value+"_sum", c.value+"_count")
		}
	}
	slices.Sort(names)
	if d := slices.Compact(slices.Clone(names)); len(d) != len(names) {
		t.Errorf("two metric constants share a name")
	}
	golden.Check(t, metricNamesFile, []byte(strings.Join(names, "\n")+"\n"), *update,
		"go test ./internal/contract -run TestMetricNamesFile -update (make dashboard)")
}

// labelNamesFile lists the label names of the live metrics (the
// MetricLabel* constants) and the values of the result label, as
// "name" and "name=value" lines; the dashboard's tests (hack/dashboard)
// check the labels its queries select and group by against it.
var labelNamesFile = filepath.Join("..", "..", "charts", "mongobench", "dashboards", "label-names.txt")

// TestLabelNamesFile: label-names.txt holds exactly the contract's label
// names and result values.
func TestLabelNamesFile(t *testing.T) {
	lines := []string{
		MetricLabelNamespace, MetricLabelRun, MetricLabelPhase, MetricLabelLoader, MetricLabelOperation, MetricLabelResult,
		MetricLabelProcess, MetricLabelType, MetricLabelDirection, MetricLabelKind, MetricLabelQuery, MetricLabelSweep,
		MetricLabelResult + "=" + ResultOK, MetricLabelResult + "=" + ResultError,
	}
	// Every MetricLabel* constant is listed above.
	f, err := parser.ParseFile(token.NewFileSet(), "metrics.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared int
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, "MetricLabel") && id.Obj != nil && id.Obj.Kind == ast.Con {
			declared++
		}
		return true
	})
	if declared != 12 {
		t.Errorf("metrics.go declares %d MetricLabel* constants; this test lists 12: add the new one", declared)
	}
	slices.Sort(lines)
	golden.Check(t, labelNamesFile, []byte(strings.Join(lines, "\n")+"\n"), *update,
		"go test ./internal/contract -run TestLabelNamesFile -update (make dashboard)")
}
