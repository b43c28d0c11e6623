package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./internal/report -update rewrites it; review the diff):\n%s", name, got)
	}
}

func sweepStudy(t *testing.T, name string) *Study {
	t.Helper()
	sweep, runs := loadFixture(t, name)
	s, err := FromSweep(sweep, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGoldenReports(t *testing.T) {
	for _, tc := range []struct {
		fixture, axis, golden string
		format                Format
	}{
		{"microsharding", "", "microsharding.md", FormatMarkdown},
		{"microsharding", "", "microsharding.csv", FormatCSV},
		{"pool", "", "pool.md", FormatMarkdown},
		{"pool", "maxPoolSize", "pool-by-pool.md", FormatMarkdown},
		{"pool", "", "pool.csv", FormatCSV},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, sweepStudy(t, tc.fixture), tc.format, Options{Axis: tc.axis}); err != nil {
			t.Fatalf("%s: %v", tc.golden, err)
		}
		golden(t, tc.golden, buf.Bytes())
	}
}
