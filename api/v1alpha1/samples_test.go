package v1alpha1_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/mongobench/mongobench/internal/testutil/kube"
)

// printerColumn is one additionalPrinterColumns entry of a generated CRD.
type printerColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Priority int    `json:"priority"`
}

// printerColumns reads the printer columns of the generated CRD of
// resource (benchmarkruns, benchmarksweeps): what `kubectl get` prints.
func printerColumns(t *testing.T, resource string) []printerColumn {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(kube.RepoRoot(), "config", "crd", "bases", "bench.mongobench.io_"+resource+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Columns []printerColumn `json:"additionalPrinterColumns"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	if len(crd.Spec.Versions) != 1 || len(crd.Spec.Versions[0].Columns) == 0 {
		t.Fatalf("%s: want one version with printer columns, got %+v", resource, crd.Spec.Versions)
	}
	return crd.Spec.Versions[0].Columns
}

var kubectlGet = regexp.MustCompile(`^kubectl get (benchmarkruns|benchmarksweeps)\b(.*)$`)

// TestSampleGetOutputsMatchThePrinterColumns: every `kubectl get
// benchmarkruns|benchmarksweeps` the README and docs/ show followed by
// its output ("# NAME ...") has the header kubectl prints from the CRD's
// printer columns (with -o wide, those of priority 1 too), and rows whose
// cells sit under their headings, numbers where the column is numeric: a
// counter is 0, never blank.
func TestSampleGetOutputsMatchThePrinterColumns(t *testing.T) {
	n := 0
	for _, page := range docPages(t) {
		lines := strings.Split(readPage(t, page), "\n")
		for i, line := range lines {
			m := kubectlGet.FindStringSubmatch(line)
			if m == nil || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "# NAME ") {
				continue
			}
			n++
			wide := strings.Contains(m[2], "-o wide")
			cols := []printerColumn{{Name: "Name", Type: "string"}}
			for _, c := range printerColumns(t, m[1]) {
				if c.Priority == 0 || wide {
					cols = append(cols, c)
				}
			}
			header := strings.TrimPrefix(lines[i+1], "# ")
			var want []string
			for _, c := range cols {
				want = append(want, strings.ToUpper(c.Name))
			}
			if got := strings.Fields(header); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s:%d: %s shows the header\n%v\nkubectl prints\n%v", page, i+2, line, got, want)
				continue
			}
			// Where each column starts in the header.
			starts := make([]int, len(want))
			from := 0
			for k, h := range want {
				starts[k] = from + strings.Index(header[from:], h)
				from = starts[k] + len(h)
			}
			for j := i + 2; j < len(lines) && strings.HasPrefix(lines[j], "# "); j++ {
				row := strings.TrimPrefix(lines[j], "# ")
				for k, c := range cols {
					if starts[k] > 0 && starts[k] <= len(row) && row[starts[k]-1] != ' ' {
						t.Errorf("%s:%d: the cell before %s runs into it:\n%s\n%s", page, j+1, want[k], header, row)
					}
					end := len(row)
					if k+1 < len(cols) {
						end = min(starts[k+1], len(row))
					}
					cell := ""
					if starts[k] < end {
						cell = strings.TrimSpace(row[starts[k]:end])
					}
					if c.Type == "integer" || c.Type == "number" {
						if _, err := strconv.ParseFloat(cell, 64); err != nil {
							t.Errorf("%s:%d: column %s is numeric, the sample shows %q:\n%s\n%s", page, j+1, want[k], cell, header, row)
						}
					}
				}
			}
		}
	}
	if n < 3 {
		t.Errorf("found %d sample outputs of kubectl get in the README and docs/", n)
	}
}

// TestTuningClaimsHaveSources: every note of docs/tuning.md's host list
// that states something about kernels, glibc or MongoDB versions links to
// where that is said (MongoDB's documentation, the image's repository):
// such claims go stale, and a reader must be able to check them.
func TestTuningClaimsHaveSources(t *testing.T) {
	page := readPage(t, "docs/tuning.md")
	host, _, ok := strings.Cut(page, "\n## ")
	if !ok {
		t.Fatal("docs/tuning.md has no section after the host notes")
	}
	claim := regexp.MustCompile(`(?i)\bkernel\b|\bLinux \d|\bglibc\b|\bMongoDB \d`)
	source := regexp.MustCompile(`\]\(https://[^)\s]+\)`)
	n := 0
	for _, note := range strings.Split(host, "\n* ")[1:] {
		if !claim.MatchString(note) {
			continue
		}
		n++
		if !source.MatchString(note) {
			t.Errorf("docs/tuning.md: a note about kernels or versions without a source link:\n* %s", note)
		}
	}
	if n < 3 {
		t.Errorf("found %d notes about kernels or versions in docs/tuning.md", n)
	}
}
