package loader

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/topology"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// props are the properties given as -p name=value.
func props(t *testing.T, kv ...string) *ycsb.Properties {
	t.Helper()
	p, err := ycsb.LoadProperties(nil, kv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testEnv(vars map[string]string) Env {
	return Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(k string) string { return vars[k] }}
}

// TestKnownPropertiesMatchTheCode runs everything `loader load|run` does
// with properties before it connects (preparePhase: the engine's readers,
// ConfigFromProperties, the loader identity and target split; and
// openDestinations) over representative property sets, recording every key
// looked up: each must be registered, and each property registered here
// that is not ignored must be looked up. (The engine's own registry has the
// same test in internal/ycsb.)
func TestKnownPropertiesMatchTheCode(t *testing.T) {
	known := map[string]ycsb.Property{}
	for _, p := range KnownProperties() {
		if _, dup := known[p.Name]; dup {
			t.Errorf("%s is registered twice", p.Name)
		}
		known[p.Name] = p
		if !slices.Contains(helpGroups, p.Group) {
			t.Errorf("%s: group %q has no section in -h", p.Name, p.Group)
		}
	}
	dir := t.TempDir()
	sets := [][]string{
		nil,
		{"workload=site.ycsb.workloads.CoreWorkload", "exporter=" + textExporters[0], "exportfile=" + filepath.Join(dir, "report"),
			"recordcount=1000", "operationcount=900", "target=300", "loader.count=3", "loader.index=1",
			"mongodb.url=mongodb://u:p@h1:27017,h2/bench?w=1", "mongodb.writeConcern=majority", "mongodb.readPreference=nearest",
			"mongodb.maxconnections=10", "batchsize=10", "mongodb.upsert=true", "mongodb.operationtimeout=5s"},
	}
	read := map[string]bool{}
	for _, kv := range sets {
		for _, phase := range []ycsb.Phase{phaseLoad, phaseRun} {
			p := props(t, kv...)
			p.RecordReads()
			env := testEnv(nil)
			pr, err := preparePhase(phase, p, env)
			if err != nil {
				t.Fatalf("%v: %v", kv, err)
			}
			d, err := openDestinations(&phaseFlags{}, p, env, pr.index)
			if err != nil {
				t.Fatal(err)
			}
			d.close()
			for _, k := range p.ReadKeys() {
				read[k] = true
			}
		}
	}
	for k := range read {
		p, ok := known[k]
		switch {
		case !ok:
			t.Errorf("the loader reads %q, which is not in KnownProperties", k)
		case p.Ignored != "":
			t.Errorf("the loader reads %q, which KnownProperties says is ignored", k)
		}
	}
	for _, p := range commandProperties {
		if p.Ignored == "" && !read[p.Name] {
			t.Errorf("%s is registered but the loader never reads it", p.Name)
		}
	}
}

func TestPropertyWarnings(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want []string
	}{
		{nil, nil},
		{[]string{"readproportion=0.9", "mongodb.url=mongodb://h/", "loader.count=2"}, nil},
		{[]string{"readproprotion=0.9"}, []string{`unknown property "readproprotion" (did you mean "readproportion"?); it is ignored`}},
		{[]string{"mongodb.writeconcern=majority"},
			[]string{`unknown property "mongodb.writeconcern" (did you mean "mongodb.writeConcern"?); it is ignored`}},
		{[]string{"operationcont=1", "fieldlenght=5"}, []string{
			`unknown property "fieldlenght" (did you mean "fieldlength"?); it is ignored`,
			`unknown property "operationcont" (did you mean "operationcount"?); it is ignored`}},
		{[]string{"threads=4"}, []string{`unknown property "threads"; it is ignored`}},
		{[]string{"frobnicate=1"}, []string{`unknown property "frobnicate"; it is ignored`}},
		{[]string{"measurement.trackjvm=true"}, []string{`property "measurement.trackjvm" is ignored: there is no JVM`}},
		{[]string{"mongodb.threadsAllowedToBlockForConnectionMultiplier=5"},
			[]string{`property "mongodb.threadsAllowedToBlockForConnectionMultiplier" is ignored: the Go driver has no wait queue limit`}},
	} {
		if got := propertyWarnings(props(t, tc.kv...)); !slices.Equal(got, tc.want) {
			t.Errorf("%v:\n got %q\nwant %q", tc.kv, got, tc.want)
		}
	}
}

// TestNoWarningsForWhatWeShip: the embedded workload files and every
// property the operator's Jobs pass are known, so a Job's log never shows
// an "unknown property" warning that is not the user's.
func TestNoWarningsForWhatWeShip(t *testing.T) {
	for _, name := range ycsb.EmbeddedWorkloads() {
		p, err := ycsb.LoadProperties([]string{name}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := propertyWarnings(p); len(w) > 0 {
			t.Errorf("workload %s: %q", name, w)
		}
	}

	// A run setting every field that becomes a property, with the
	// properties the API documents as passed through, two Run phases (the
	// second gets loader.insertkeyoffset) and a Load phase.
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "bench", UID: "u"},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone, Image: "mongo:8.0.4"},
			Workload: benchv1.WorkloadSpec{
				Preset: "a", RecordCount: ptr.To[int64](1000), FieldCount: ptr.To[int32](8), FieldLength: ptr.To[int32](250),
				InsertOrder: "hashed", ZeroPadding: ptr.To[int32](4),
				WorkloadParameters: benchv1.WorkloadParameters{
					OperationCount: ptr.To[int64](1000), ReadProportion: ptr.To(0.5), UpdateProportion: ptr.To(0.2),
					InsertProportion: ptr.To(0.1), ScanProportion: ptr.To(0.1), ReadModifyWriteProportion: ptr.To(0.1),
					RequestDistribution: "zipfian", ReadAllFields: ptr.To(true), WriteAllFields: ptr.To(false),
					Properties: map[string]benchv1.PropertyValue{
						"maxscanlength": "100", "minscanlength": "1", "scanlengthdistribution": "uniform", "hotspotdatafraction": "0.2",
						"hotspotopnfraction": "0.8", "fieldlengthdistribution": "constant", "exponential.percentile": "95",
						"dataintegrity": "false",
					},
				},
			},
			Phases: []benchv1.PhaseSpec{
				{Name: "load", Type: benchv1.PhaseLoad, Threads: 4, BatchSize: ptr.To[int32](100)},
				{Name: "s2", Type: benchv1.PhaseRun, Threads: 4, MaxExecutionTime: &metav1.Duration{Duration: time.Minute},
					Target: ptr.To[int64](3000)},
				{Name: "s3", Type: benchv1.PhaseRun, Threads: 4, BatchSize: ptr.To[int32](10),
					Workload: &benchv1.WorkloadParameters{InsertProportion: ptr.To(0.5), ReadProportion: ptr.To(0.5)}},
			},
			Driver:  benchv1.DriverSpec{WriteConcern: "majority", Journal: ptr.To(true), ReadPreference: "primary", MaxPoolSize: ptr.To[int32](64)},
			Loaders: 3,
			Target:  9000,
		},
	}
	keys := map[string]bool{}
	for i := range run.Spec.Phases {
		ph := &run.Spec.Phases[i]
		args := topology.LoaderArgs(run, ph, "cluster.local")
		phase := phaseRun
		if args[0] == "load" {
			phase = phaseLoad
		}
		_, p, err := parsePhaseArgs(phase, args[1:], testEnv(nil))
		if err != nil {
			t.Fatalf("%s: %v", ph.Name, err)
		}
		if w := propertyWarnings(p); len(w) > 0 {
			t.Errorf("phase %s (%v): %q", ph.Name, args, w)
		}
		for _, k := range p.Keys() {
			keys[k] = true
		}
	}
	for _, k := range []string{"loader.count", "loader.insertkeyoffset", "status.interval", "mongodb.url", "batchsize", "maxexecutiontime",
		"threadcount", "target", "status"} {
		if !keys[k] {
			t.Errorf("the example does not exercise %s", k)
		}
	}
}

// TestPropertyHelp: the -h table lists every known property with its
// default, under its group's heading, in aligned columns.
func TestPropertyHelp(t *testing.T) {
	var b bytes.Buffer
	writePropertyHelp(&b)
	out := b.String()
	for _, g := range helpGroups {
		if !strings.Contains(out, "\n"+string(g)+":\n") {
			t.Errorf("no heading %q", g)
		}
	}
	for _, p := range KnownProperties() {
		def := p.Default
		if def == "" {
			def = "-"
		}
		row := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(p.Name) + ` +` + regexp.QuoteMeta(def) + `( |$)`)
		if !row.MatchString(out) {
			t.Errorf("no row for %s with default %s", p.Name, def)
		}
		if !strings.Contains(out, p.Meaning) || (p.Ignored != "" && !strings.Contains(out, "ignored: "+p.Ignored)) {
			t.Errorf("%s: meaning missing", p.Name)
		}
	}
	// Aligned: every single-line row has its meaning in the same column.
	col := -1
	for _, line := range strings.Split(out, "\n") {
		if m := regexp.MustCompile(`^  (\S+) +(\S+) +\S`).FindStringSubmatchIndex(line); m != nil && len(line) > 2+helpNameWidth {
			start := m[5] + strings.IndexFunc(line[m[5]:], func(r rune) bool { return r != ' ' })
			if col == -1 {
				col = start
			} else if start != col {
				t.Errorf("meaning at column %d, not %d: %q", start, col, line)
			}
		}
	}
	if col == -1 {
		t.Error("no rows")
	}
}

// TestUnlimitedRunWarning: a run without an operation count or a time
// limit says that it will not end by itself; a load, or a bounded run, says
// nothing.
func TestUnlimitedRunWarning(t *testing.T) {
	const want = "operationcount is 0 (unlimited) and maxexecutiontime is not set: this run goes on until it is stopped (SIGTERM/Ctrl-C)"
	for _, tc := range []struct {
		phase ycsb.Phase
		kv    []string
		warn  bool
	}{
		{phaseRun, nil, true},
		{phaseRun, []string{"operationcount=0"}, true},
		{phaseRun, []string{"operationcount=0", "loader.count=3"}, true},
		{phaseRun, []string{"operationcount=0", "maxexecutiontime=0"}, true},
		{phaseRun, []string{"operationcount=1000"}, false},
		{phaseRun, []string{"operationcount=0", "maxexecutiontime=60"}, false},
		{phaseLoad, nil, false},
		{phaseLoad, []string{"operationcount=0", "recordcount=0"}, false},
	} {
		pr, err := preparePhase(tc.phase, props(t, tc.kv...), testEnv(nil))
		if err != nil {
			t.Fatal(err)
		}
		got := pr.warnings()
		if tc.warn != slices.Contains(got, want) || (!tc.warn && len(got) > 0) {
			t.Errorf("%s %v: warnings %q", tc.phase, tc.kv, got)
		}
	}
	// The workload presets set operationcount=1000.
	p, err := ycsb.LoadProperties([]string{"workloada"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pr, err := preparePhase(phaseRun, p, testEnv(nil)); err != nil || len(pr.warnings()) > 0 {
		t.Errorf("workloada: %v %v", pr.warnings(), err)
	}
}

func ExampleKnownProperties() {
	for _, p := range KnownProperties() {
		if p.Group == mongodb.Group && p.Ignored == "" {
			fmt.Printf("%s=%s\n", p.Name, p.Default)
		}
	}
	// Output:
	// mongodb.url=mongodb://localhost:27017/ycsb?w=1
	// mongodb.writeConcern=
	// mongodb.readPreference=
	// mongodb.maxconnections=
	// batchsize=1
	// mongodb.upsert=false
	// mongodb.operationtimeout=30s
	// mongobench.database=
	// mongobench.urioptions=
}
