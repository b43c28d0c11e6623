package sweepfixture

import (
	"encoding/json"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// Load reads the List at path into the sweep and its runs, failing the test
// on anything else in it.
func Load(t testing.TB, path string) (*benchv1.BenchmarkSweep, []benchv1.BenchmarkRun) {
	t.Helper()
	sw, runs := load(t, path)
	if sw == nil {
		t.Fatalf("%s: no sweep", path)
	}
	return sw, runs
}

// LoadRuns reads a List of runs alone, failing the test on anything else
// in it.
func LoadRuns(t testing.TB, path string) []benchv1.BenchmarkRun {
	t.Helper()
	sw, runs := load(t, path)
	if sw != nil {
		t.Fatalf("%s: a sweep in a list of runs", path)
	}
	return runs
}

func load(t testing.TB, path string) (*benchv1.BenchmarkSweep, []benchv1.BenchmarkRun) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var sw *benchv1.BenchmarkSweep
	var runs []benchv1.BenchmarkRun
	for _, raw := range list.Items {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(raw, &tm); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch tm.Kind {
		case "BenchmarkSweep":
			sw = &benchv1.BenchmarkSweep{}
			if err := json.Unmarshal(raw, sw); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		case "BenchmarkRun":
			var r benchv1.BenchmarkRun
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			runs = append(runs, r)
		default:
			t.Fatalf("%s: unexpected kind %q", path, tm.Kind)
		}
	}
	return sw, runs
}
