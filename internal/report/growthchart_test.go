package report

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// Each growth chart has the records on x (ticks like 50M), its metric on
// y and one line per cell, named in the legend.
func TestGrowthCharts(t *testing.T) {
	s := sweepStudy(t, "growth")
	charts, err := s.growthCharts()
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, c := range charts {
		titles = append(titles, c.Title)
	}
	want := []string{"Insert rate", "Insert p99", "Q1 throughput", "Q1 p99", "Q2 throughput", "Q2 p99", "Q3 throughput", "Q3 p99",
		"Q4 throughput", "Q4 p99", "Data size", "Index size", "Storage size"}
	for i := range want {
		want[i] += " against records (phase grow)"
	}
	if !slices.Equal(titles, want) {
		t.Fatalf("charts %q, want %q", titles, want)
	}
	yLabels := map[string]string{"Insert rate": "insert rate (documents/s)", "Q3 p99": "Q3 p99 latency (µs)",
		"Q1 throughput": "Q1 throughput (queries/s)", "Data size": "data size (GB)", "Index size": "index size (GB)"}
	text := regexp.MustCompile(`>([^<>]*)</text>`)
	// The data lines: a path of a line's colour through 20 checkpoints
	// (a legend's sample is one segment, a point's glyph a few).
	line := regexp.MustCompile(`<path d="M[^"]*" style="fill:none;stroke:(#[0-9A-F]{6});stroke-width:1.5"`)
	for _, c := range charts {
		var texts []string
		for _, m := range text.FindAllStringSubmatch(c.SVG, -1) {
			texts = append(texts, m[1])
		}
		need := []string{c.Title, "records", "0", "50M", "100M", "150M", "200M"}
		for prefix, y := range yLabels {
			if strings.HasPrefix(c.Title, prefix+" ") {
				need = append(need, y)
			}
		}
		for i := range s.Cells {
			need = append(need, s.Cells[i].Name)
		}
		for _, w := range need {
			if !slices.Contains(texts, w) {
				t.Errorf("%s: no text %q among %q", c.Title, w, texts)
			}
		}
		lines := map[string]int{}
		for _, m := range line.FindAllStringSubmatchIndex(c.SVG, -1) {
			d := c.SVG[m[0]:m[1]]
			if strings.Count(d, "L") >= 19 {
				lines[c.SVG[m[2]:m[3]]]++
			}
		}
		if len(lines) != len(s.Cells) {
			t.Errorf("%s: data lines by colour %v, want one for each of %d cells", c.Title, lines, len(s.Cells))
		}
		for colour, n := range lines {
			if n != 1 {
				t.Errorf("%s: %d lines of colour %s", c.Title, n, colour)
			}
		}
	}
	// A YCSB study has none.
	if c, err := sweepStudy(t, "pool").growthCharts(); err != nil || len(c) != 0 {
		t.Errorf("pool: %d growth charts, %v", len(c), err)
	}
}

func TestCountTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
		minors int
	}{
		{0, 200e6, "0 50M 100M 150M 200M", 16},
		{0, 2e6, "0 500k 1M 1.5M 2M", 16},
		{0, 1e11, "0 20B 40B 60B 80B 100B", 20},
		{0, 30e3, "0 5k 10k 15k 20k 25k 30k", 24},
		{0, 7, "0 2 4 6", 14},
	} {
		var labels []string
		minors := 0
		for _, tk := range (countTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label == "" {
				minors++
				continue
			}
			labels = append(labels, tk.Label)
		}
		if got := strings.Join(labels, " "); got != tc.want || minors != tc.minors {
			t.Errorf("ticks of [%g, %g]: %q and %d unlabelled, want %q and %d", tc.lo, tc.hi, got, minors, tc.want, tc.minors)
		}
	}
	var _ plot.Ticker = countTicks{}
}
