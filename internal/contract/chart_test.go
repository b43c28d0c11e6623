package contract_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// TestChartPodMonitorSelectsLoaders: the chart's PodMonitor spells the
// loader pods' labels and metrics port as the Go code defines them (the
// template cannot import them; hack/test-chart.sh checks its rendering
// and installation).
func TestChartPodMonitorSelectsLoaders(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "charts", "mongobench", "templates", "podmonitor.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, want := range []string{
		benchv1.LabelComponent + ": " + benchv1.ComponentLoader,
		benchv1.LabelManagedBy + ": " + benchv1.ManagedBy,
		"- port: " + contract.MetricsPortName,
		"path: " + contract.MetricsPath,
	} {
		if !lines[want] {
			t.Errorf("charts/mongobench/templates/podmonitor.yaml lacks the line %q", want)
		}
	}
}
