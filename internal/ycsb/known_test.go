package ycsb

import (
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// readEngineProperties runs everything that reads properties in this
// package over p, for both phases, and returns the keys looked up.
func readEngineProperties(t *testing.T, p *Properties) []string {
	t.Helper()
	p.RecordReads()
	if _, err := NewWorkload(p); err != nil {
		t.Fatalf("%v: %v", p.m, err)
	}
	for _, phase := range []Phase{PhaseLoad, PhaseRun} {
		if _, err := RunOptionsFromProperties(p, phase, io.Discard); err != nil {
			t.Fatalf("%v: %v", p.m, err)
		}
	}
	if _, err := PercentilesFromProperties(p); err != nil {
		t.Fatalf("%v: %v", p.m, err)
	}
	return p.ReadKeys()
}

// representativeProperties are property sets that together take every
// branch reading a property: defaults, everything set, the histogram field
// length (the only conditional read), parallel loaders.
func representativeProperties(t *testing.T) []*Properties {
	hist := filepath.Join(t.TempDir(), "hist.txt")
	writeFile(t, hist, "BlockSize\t10\n0\t0\n1\t1\n")
	return []*Properties{
		NewProperties(),
		props("recordcount=1000", "operationcount=500", "insertstart=10", "insertcount=900", "table=t", "fieldcount=3",
			"fieldnameprefix=f", "fieldlength=20", "minfieldlength=5", "fieldlengthdistribution=uniform", "readallfields=false",
			"readallfieldsbyname=true", "writeallfields=true", "readproportion=0.2", "updateproportion=0.2",
			"insertproportion=0.2", "scanproportion=0.2", "readmodifywriteproportion=0.2", "requestdistribution=hotspot",
			"hotspotdatafraction=0.1", "hotspotopnfraction=0.9", "exponential.percentile=90", "exponential.frac=0.5",
			"minscanlength=2", "maxscanlength=20", "scanlengthdistribution=zipfian", "insertorder=ordered", "zeropadding=8",
			"core_workload_insertion_retry_limit=2", "core_workload_insertion_retry_interval=1",
			"threadcount=4", "target=100", "maxexecutiontime=60", "status=true", "status.interval=1", "label=x",
			"measurementtype=hdrhistogram", "measurement.interval=op", "hdrhistogram.percentiles=50,99.9",
			"loader.insertkeyoffset=1099511627776"),
		props("fieldlengthdistribution=histogram", "fieldlengthhistogram="+hist, "dataintegrity=false"),
		props("recordcount=1000", "operationcount=1000", "loader.count=3", "loader.index=2"),
	}
}

// TestKnownPropertiesMatchTheCode ties the registry to the code both ways:
// every key the engine looks up is registered (else setting it would warn
// "unknown property"), and every registered property that is not ignored
// is looked up (else the registry lists a property that does nothing).
func TestKnownPropertiesMatchTheCode(t *testing.T) {
	known := map[string]Property{}
	for _, p := range KnownProperties() {
		if _, dup := known[p.Name]; dup {
			t.Errorf("%s is registered twice", p.Name)
		}
		known[p.Name] = p
		if p.Meaning == "" || strings.Contains(p.Meaning, "\n") || p.Group == "" {
			t.Errorf("%s: want a one-line meaning and a group: %+v", p.Name, p)
		}
	}
	read := map[string]bool{}
	for _, p := range representativeProperties(t) {
		for _, k := range readEngineProperties(t, p) {
			read[k] = true
		}
	}
	for k := range read {
		p, ok := known[k]
		switch {
		case !ok:
			t.Errorf("the engine reads %q, which is not in KnownProperties", k)
		case p.Ignored != "":
			t.Errorf("the engine reads %q, which KnownProperties says is ignored", k)
		}
	}
	for name, p := range known {
		if p.Ignored == "" && !read[name] {
			t.Errorf("%s is registered but the engine never reads it", name)
		}
	}
}

// TestKnownPropertyDefaults: setting a property to its registered default
// builds the same workload and options as leaving it unset, so the defaults
// `loader run -h` prints are the code's. Each base enables the generators
// that read the distribution-specific properties.
func TestKnownPropertyDefaults(t *testing.T) {
	type built struct {
		w         *Workload
		load, run RunOptions
		pct       []float64
	}
	build := func(kv []string) built {
		t.Helper()
		p := props(kv...)
		var b built
		var err error
		if b.w, err = NewWorkload(p); err != nil {
			t.Fatal(err)
		}
		if b.load, err = RunOptionsFromProperties(p, PhaseLoad, io.Discard); err != nil {
			t.Fatal(err)
		}
		if b.run, err = RunOptionsFromProperties(p, PhaseRun, io.Discard); err != nil {
			t.Fatal(err)
		}
		if b.pct, err = PercentilesFromProperties(p); err != nil {
			t.Fatal(err)
		}
		return b
	}
	// A small record count keeps the zipfian set-up quick; the defaults
	// under test do not depend on it.
	counts := []string{"recordcount=1000", "operationcount=1000"}
	for _, base := range [][]string{
		nil,
		counts,
		append(slices.Clone(counts), "requestdistribution=hotspot"),
		append(slices.Clone(counts), "requestdistribution=exponential"),
		append(slices.Clone(counts), "fieldlengthdistribution=uniform", "scanlengthdistribution=zipfian"),
	} {
		want := build(base)
		inBase := func(name string) bool {
			return slices.ContainsFunc(base, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
		}
		for _, p := range KnownProperties() {
			// insertcount's default is a formula; "" means no default.
			if p.Ignored != "" || p.Default == "" || p.Name == "insertcount" || inBase(p.Name) {
				continue
			}
			if got := build(append(slices.Clone(base), p.Name+"="+p.Default)); !reflect.DeepEqual(got, want) {
				t.Errorf("%v: %s=%s is not what leaving it unset does", base, p.Name, p.Default)
			}
		}
	}
}

func TestRecordReads(t *testing.T) {
	p := props("a=1", "b=x")
	_, _ = p.Get("a")
	if len(p.ReadKeys()) != 0 {
		t.Error("reads recorded before RecordReads")
	}
	p.RecordReads()
	_ = p.Has("z")
	_, _ = p.Int("a", 0)
	_ = p.String("b", "")
	_, _ = p.Bool("c", false)
	_, _ = p.Float64("d", 0)
	_, _ = p.Int64("e", 0)
	_, _ = p.Get("f")
	_ = p.Keys() // not a read of a property
	if got, want := p.ReadKeys(), []string{"a", "b", "c", "d", "e", "f", "z"}; !slices.Equal(got, want) {
		t.Errorf("ReadKeys %v, want %v", got, want)
	}
}
