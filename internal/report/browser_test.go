package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// The HTML report must stand on its own in a real browser: it renders
// offline, and every chart is an SVG the browser parsed with its axis
// labels. Headless Chromium loads each fixture's page, takes a screenshot
// and dumps the DOM it built.

// browserTimeout bounds each Chromium invocation (it takes ~1 s).
const browserTimeout = 60 * time.Second

func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not on PATH, so the HTML report is not checked in a browser; " +
			"install Debian's chromium package (apt-get install -y chromium; .ci/run does so when missing)")
	}
	return path
}

// runChromium runs headless Chromium on the page with args and returns
// its stdout.
func runChromium(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-extensions", "--hide-scrollbars", "--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v (after %s)\nstderr:\n%s", args, err, time.Since(began).Round(time.Millisecond), stderr.String())
	}
	t.Logf("chromium %s took %s", args[0], time.Since(began).Round(time.Millisecond))
	return stdout.Bytes()
}

// chartLabels are the texts every chart of a kind must show, by the
// start of its title.
var chartLabels = map[string][]string{
	"Throughput against ":      {"throughput (ops/s)"},
	"p99 latency against ":     {"p99 latency (µs)"},
	"Intended p99 latency ":    {"intended p99 latency (µs)"},
	"Mean latency against ":    {"mean latency (µs)"},
	"Peak server connections ": {"peak connections (any MongoDB process)"},
	"Throughput over time: ":   {"time since the phase started (s)", "throughput (ops/s)"},
	// A phase with disruptions: each marked, its window shaded.
	"p99 latency over time: ":        {"time since the phase started (s)", "p99 latency (µs)", instantLegend, windowLegend},
	"Throughput around disruption ":  {"time from the disruption (s)", "throughput (ops/s)", instantLegend, windowLegend},
	"p99 latency around disruption ": {"time from the disruption (s)", "p99 latency (µs)", instantLegend, windowLegend},
	"History of ":                    {"runs before this one (oldest left)", "this run", "compared with", "baseline (median)", "change point: regime starts"},
}

func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	for _, tc := range []struct {
		fixture string
		// axis is the x axis's label of the charts against the axis.
		axis string
		// charts: per numeric axis, phase and metric (throughput, p99,
		// intended p99 where the phase measured it, mean latency,
		// connections); then one time series per phase.
		charts int
	}{
		// Five phases, S4 with intended latencies.
		{"microsharding", "topology", 5*4 + 1 + 5},
		// The connections study: threads double, so x is log₂.
		{"pool", "threads (log₂ scale)", 2*4 + 2},
		// A gated run: a history chart per compared metric, then the
		// throughput over time of its two phases.
		{"nightly", "", 3 + 2},
		// The growth study: insert rate and p99, each query class's
		// throughput and p99, three sizes against records; then against
		// topology, of its one phase, throughput, p99 and mean latency
		// (no telemetry, no time series).
		{"growth", "topology", 2 + 4*2 + 3 + 3},
		// The failover study (retryWrites, not numeric: no chart against
		// it): throughput over time of both phases, phase a's p99 over
		// time, and its disruption reached at 100 ms, throughput and p99.
		{"failover", "", 2 + 1 + 2},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			s := browserStudy(t, tc.fixture)
			var buf bytes.Buffer
			if err := HTML(&buf, s, Options{}); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s.html: %d bytes", tc.fixture, buf.Len())
			dir := t.TempDir()
			page := filepath.Join(dir, tc.fixture+".html")
			if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}

			shot := filepath.Join(dir, "shot.png")
			runChromium(t, bin, page, "--screenshot="+shot, "--window-size=1280,3000")
			checkScreenshot(t, shot, 1280, 3000)
			checkFitsWidth(t, bin, page, 800)

			dom := runChromium(t, bin, page, "--dump-dom")
			doc, err := html.Parse(bytes.NewReader(dom))
			if err != nil {
				t.Fatalf("parse the DOM: %v", err)
			}
			checkSelfContained(t, doc)
			figures := findAll(doc, "figure")
			if len(findAll(doc, "svg")) != tc.charts || len(figures) != tc.charts {
				t.Fatalf("%d <svg> in %d <figure>, want %d charts", len(findAll(doc, "svg")), len(figures), tc.charts)
			}
			kneeCharts, historyCharts, growthCharts := 0, 0, 0
			// throughputCharts counts each phase's throughput charts
			// against an axis, by their titles' "(phase X)".
			throughputCharts := map[string]int{}
			for _, fig := range figures {
				svgs, caps := findAll(fig, "svg"), findAll(fig, "figcaption")
				if len(svgs) != 1 || len(caps) != 1 {
					t.Fatalf("a figure with %d svg and %d captions", len(svgs), len(caps))
				}
				title := textOf(caps[0])
				paths, texts := findAll(svgs[0], "path"), findAll(svgs[0], "text")
				if len(paths) < 10 || len(texts) < 5 {
					t.Errorf("%q: %d paths and %d texts: the chart is (nearly) empty", title, len(paths), len(texts))
				}
				var labels []string
				for _, n := range texts {
					labels = append(labels, textOf(n))
				}
				want := chartTexts(t, title, labels, tc.axis)
				if strings.Contains(title, " against records (phase ") {
					// A line per cell, named in the legend.
					growthCharts++
					for i := range s.Cells {
						want = append(want, s.Cells[i].Name)
					}
				}
				if strings.HasPrefix(title, "History of ") {
					historyCharts++
				}
				if phase, ok := axisChartPhase(title, "Throughput against "); ok {
					kneeCharts++
					throughputCharts[phase]++
					want = append(want, throughputTexts(s, tc.fixture, phase)...)
				}
				for _, w := range want {
					if !containsString(labels, w) {
						t.Errorf("%q: no text %q among %q", title, w, labels)
					}
				}
			}
			if tc.fixture == "nightly" {
				if historyCharts != 3 || !containsString(texts(findAll(doc, "h2")), "History") {
					t.Errorf("%d history charts (want 3), sections %q", historyCharts, texts(findAll(doc, "h2")))
				}
				return
			}
			if kneeCharts == 0 && tc.axis != "" {
				t.Error("no throughput chart against the axis")
			}
			if tc.fixture == "pool" {
				// One throughput chart per phase: phases never share a y
				// axis.
				for _, ph := range s.Phases {
					if throughputCharts[ph.Name] != 1 {
						t.Errorf("phase %s has %d throughput charts against threads, want 1", ph.Name, throughputCharts[ph.Name])
					}
				}
			}
			checkSections(t, doc, tc.fixture, growthCharts)
		})
	}
}

// browserStudy is the fixture's study as the plugin would build it: the
// failover study with the merged results the plugin reads for it.
func browserStudy(t *testing.T, fixture string) *Study {
	t.Helper()
	switch fixture {
	case "nightly":
		return nightlyStudy(t, 0)
	case "failover":
		sw, runs := loadFixture(t, fixture)
		s, err := FromSweep(sw, runs, nil)
		if err != nil {
			t.Fatal(err)
		}
		var drawn []benchv1.BenchmarkRun
		for _, rp := range s.DisruptionSeries() {
			drawn = append(drawn, runs[slices.IndexFunc(runs, func(r benchv1.BenchmarkRun) bool { return r.Name == rp.Run })])
		}
		if s, err = FromSweep(sw, runs, failoverHistograms(t, drawn)); err != nil {
			t.Fatal(err)
		}
		return s
	}
	return sweepStudy(t, fixture)
}

// throughputTexts are what a phase's throughput chart against an axis
// must show besides its kind's labels: the knee when the phase has one,
// and in the connections study (pool) what it compares, a line per pool
// size named in the legend, and the repetitions' spread.
func throughputTexts(s *Study, fixture, phase string) []string {
	var want []string
	if slices.ContainsFunc(s.Knees, func(k benchv1.SweepKnee) bool { return k.Phase == phase }) {
		want = append(want, "knee (95% of best)")
	}
	if fixture == "pool" {
		for _, v := range s.Axes[1].Values {
			want = append(want, "maxPoolSize="+v.Name)
		}
		want = append(want, whiskerLegend)
	}
	return want
}

// checkSections asserts a sweep's page has its sections, and growth
// charts only for the growth study.
func checkSections(t *testing.T, doc *html.Node, fixture string, growthCharts int) {
	t.Helper()
	sections := []string{"Throughput (ops/s)", "p99 latency (µs)", "Mean latency (µs)", "Latency by operation (µs)", "Environment"}
	if fixture == "growth" {
		sections = append(sections, "Growth")
		if growthCharts != 13 {
			t.Errorf("%d growth charts, want 13", growthCharts)
		}
	} else if growthCharts != 0 {
		t.Errorf("%d growth charts in a study without a Grow phase", growthCharts)
	}
	if fixture == "microsharding" {
		// Intended latencies, warm-ups, loaders and an invalid run.
		sections = append(sections, "Intended p99 latency (µs)", "Warm-up and loaders", "Invalid runs")
	}
	if fixture == "failover" {
		sections = append(sections, "Disruptions")
	}
	for _, h := range sections {
		if !containsString(texts(findAll(doc, "h2")), h) {
			t.Errorf("no section %q", h)
		}
	}
}

// axisChartPhase is the phase of a chart against an axis whose caption
// starts with prefix ("Throughput against threads (phase run). Points:
// …").
func axisChartPhase(caption, prefix string) (string, bool) {
	title := strings.SplitN(caption, ". ", 2)[0]
	if !strings.HasPrefix(title, prefix) {
		return "", false
	}
	i := strings.LastIndex(title, " (phase ")
	if i < 0 || !strings.HasSuffix(title, ")") {
		return "", false
	}
	return title[i+len(" (phase ") : len(title)-1], true
}

// scrollWidthAttr is where fitsWidthScript leaves its measure.
var scrollWidthAttr = regexp.MustCompile(`<body[^>]* data-scroll-width="(\d+)"`)

// fitsWidthScript records, in the test's copy of the page only (the page
// itself runs no script), how wide the laid-out document is.
const fitsWidthScript = `<script>document.body.setAttribute("data-scroll-width", document.scrollingElement.scrollWidth)</script>`

// checkFitsWidth loads the page in a window width pixels wide and
// asserts nothing makes it scroll sideways: the charts scale down, the
// wide tables scroll in their own box.
func checkFitsWidth(t *testing.T, bin, page string, width int) {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	measured := strings.Replace(string(b), "</body>", fitsWidthScript+"</body>", 1)
	copyPath := strings.TrimSuffix(page, ".html") + "-measured.html"
	if err := os.WriteFile(copyPath, []byte(measured), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, bin, copyPath, "--dump-dom", "--window-size="+strconv.Itoa(width)+",600")
	m := scrollWidthAttr.FindSubmatch(dom)
	if m == nil {
		t.Fatal("the page's width was not measured: no data-scroll-width on <body>")
	}
	if w, _ := strconv.Atoi(string(m[1])); w > width {
		t.Errorf("at %d px the page is %d px wide: it scrolls sideways", width, w)
	}
}

// chartTexts are the texts a chart must show, by its caption's title:
// the title (a history chart's own is short: the metric and its verdict,
// the caption has the rest), its kind's labels and the axis it is drawn
// against.
func chartTexts(t *testing.T, title string, labels []string, axis string) []string {
	t.Helper()
	want := []string{strings.SplitN(title, ". ", 2)[0]}
	matched := false
	if strings.Contains(title, " against records (phase ") {
		// A Grow phase's chart: records on x, with ticks like 50M.
		matched = true
		want = append(want, "records", "50M", "200M")
	}
	for prefix, ls := range chartLabels {
		if strings.HasPrefix(title, prefix) {
			matched = true
			want = append(want, ls...)
			if axis != "" && !strings.Contains(prefix, " over time") && !strings.Contains(prefix, " around disruption") && prefix != "History of " {
				want = append(want, axis)
			}
		}
	}
	if !matched {
		t.Errorf("unexpected chart %q", title)
	}
	if metric, ok := strings.CutPrefix(title, "History of "); ok {
		metric = strings.SplitN(metric, " -", 2)[0]
		metric = strings.SplitN(metric, " +", 2)[0]
		want[0] = "a title starting " + metric + ": "
		for _, l := range labels {
			if strings.HasPrefix(l, metric+": ") {
				want[0] = l
			}
		}
	}
	return want
}

// checkScreenshot asserts a PNG of the window's size that shows
// something: many colours (charts) and ink on a fair share of it.
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer func() { _ = f.Close() }()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	colours := map[[3]uint32]bool{}
	ink := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
		}
	}
	share := float64(ink) / float64(b.Dx()*b.Dy()/4)
	t.Logf("screenshot: %d colours, %.1f%% ink", len(colours), share*100)
	if len(colours) < 50 || share < 0.02 {
		t.Errorf("the screenshot looks blank: %d colours, %.1f%% of it not white", len(colours), share*100)
	}
}

// checkSelfContained asserts the page loads nothing: no scripts,
// stylesheets, images or frames, and no attribute pointing elsewhere.
func checkSelfContained(t *testing.T, doc *html.Node) {
	t.Helper()
	for _, tag := range []string{"script", "link", "img", "iframe", "object", "embed"} {
		if n := len(findAll(doc, tag)); n > 0 {
			t.Errorf("the page has %d <%s>: it must load nothing", n, tag)
		}
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for _, a := range n.Attr {
			if (a.Key == "src" || a.Key == "href") && !strings.HasPrefix(a.Val, "#") {
				t.Errorf("<%s %s=%q> loads from elsewhere", n.Data, a.Key, a.Val)
			}
			if a.Key == "style" && strings.Contains(a.Val, "url(") {
				t.Errorf("<%s style=%q> loads from elsewhere", n.Data, a.Val)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, st := range findAll(doc, "style") {
		if css := textOf(st); strings.Contains(css, "url(") || strings.Contains(css, "@import") {
			t.Errorf("the stylesheet loads from elsewhere: %s", css)
		}
	}
}

func findAll(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

func texts(ns []*html.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = textOf(n)
	}
	return out
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
