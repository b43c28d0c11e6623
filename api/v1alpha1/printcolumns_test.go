package v1alpha1_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// table is what `kubectl get` prints for one object: the API server's
// rendering of the CRD's printer columns (every column, -o wide's too),
// header and cells by column name.
func table(t *testing.T, ns, resource, name string) map[string]any {
	t.Helper()
	hc, err := rest.HTTPClientFor(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("%s/apis/%s/namespaces/%s/%s/%s", strings.TrimSuffix(env.Config.Host, "/"), benchv1.GroupVersion, ns, resource, name)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// kubectl's own Accept header: the server renders the columns.
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s as Table: %s: %s", url, resp.Status, body)
	}
	var tab metav1.Table
	if err := json.Unmarshal(body, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 1 || len(tab.Rows[0].Cells) != len(tab.ColumnDefinitions) {
		t.Fatalf("table of %s/%s: %d columns, rows %+v", resource, name, len(tab.ColumnDefinitions), tab.Rows)
	}
	out := map[string]any{}
	for i, col := range tab.ColumnDefinitions {
		out[col.Name] = tab.Rows[0].Cells[i]
	}
	return out
}

// setStatus writes an object's status as a controller would.
func setStatus(t *testing.T, c client.Client, ns, kind, name string, status map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(benchv1.GroupVersion.WithKind(kind))
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = status
	if err := c.Status().Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
}

// failedCondition is a run's or a sweep's Failed condition.
func failedCondition(status metav1.ConditionStatus, reason string) map[string]any {
	return map[string]any{"type": benchv1.ConditionFailed, "status": string(status), "reason": reason,
		"message": "m", "lastTransitionTime": "2026-05-02T10:00:00Z"}
}

// TestReasonColumn: -o wide's REASON is the Failed condition's reason,
// which explains each phase: Running while it goes, the failure's kind
// once it failed.
func TestReasonColumn(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	if _, err := create(t, c, ns, minimal("going")); err != nil {
		t.Fatal(err)
	}
	if _, err := create(t, c, ns, minimal("broken")); err != nil {
		t.Fatal(err)
	}
	setStatus(t, c, ns, "BenchmarkRun", "going", map[string]any{"phase": "Running",
		"conditions": []any{failedCondition(metav1.ConditionFalse, string(benchv1.ReasonRunning))}})
	setStatus(t, c, ns, "BenchmarkRun", "broken", map[string]any{"phase": "Failed",
		"conditions": []any{failedCondition(metav1.ConditionTrue, string(benchv1.ReasonPhaseFailed))}})
	for name, want := range map[string]string{"going": "Running", "broken": "PhaseFailed"} {
		if got := table(t, ns, "benchmarkruns", name)["Reason"]; got != want {
			t.Errorf("run %s: REASON %v, want %s", name, got, want)
		}
	}

	if _, err := create(t, c, ns, sweepManifest("stopped", "  axes:\n  - {name: threads, threads: [1, 2]}\n")); err != nil {
		t.Fatal(err)
	}
	setStatus(t, c, ns, "BenchmarkSweep", "stopped", map[string]any{"phase": "Failed", "cellsTotal": 2, "cellsDone": 1, "cellsFailed": 1,
		"conditions": []any{failedCondition(metav1.ConditionTrue, string(benchv1.ReasonRunFailed))}})
	if got := table(t, ns, "benchmarksweeps", "stopped")["Reason"]; got != string(benchv1.ReasonRunFailed) {
		t.Errorf("sweep: REASON %v, want %s", got, benchv1.ReasonRunFailed)
	}
}

// TestRunningSweepCountsZero: a sweep's counters show 0, not blank, while
// it runs. The controller's status leaves a 0 out (omitempty); the
// schema's defaults put it back.
func TestRunningSweepCountsZero(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	if _, err := create(t, c, ns, sweepManifest("going", "  axes:\n  - {name: threads, threads: [1, 2]}\n")); err != nil {
		t.Fatal(err)
	}
	// What the controller writes once it started: the Go status with its
	// zeros dropped by omitempty.
	sw := &benchv1.BenchmarkSweep{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "going"}, sw); err != nil {
		t.Fatal(err)
	}
	sw.Status = benchv1.BenchmarkSweepStatus{Phase: benchv1.SweepRunning, CellsTotal: 2, RunsActive: 1}
	if err := c.Status().Update(context.Background(), sw); err != nil {
		t.Fatal(err)
	}
	row := table(t, ns, "benchmarksweeps", "going")
	// JSON numbers decode as float64.
	for _, col := range []string{"Done", "Failed", "Invalid-Runs"} {
		if got := row[col]; got != float64(0) {
			t.Errorf("column %s of a running sweep: %#v, want 0", col, got)
		}
	}
	if got := row["Cells"]; got != float64(2) {
		t.Errorf("column Cells: %#v, want 2", got)
	}
}
