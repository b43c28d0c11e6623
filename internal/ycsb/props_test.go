package ycsb

import (
	"strings"
	"testing"
)

func TestParseProperties(t *testing.T) {
	in := "# comment\n" +
		"! also a comment\n" +
		"\n" +
		"   \t\n" +
		"a=1\n" +
		"b : two\n" +
		"c three words  \n" +
		"  d=indented\n" +
		"e=continued \\\n" +
		"    line\\\n" +
		"  end\n" +
		"f=back\\\\slash\n" +
		"g=tab\\there\\u0041\n" +
		"key\\ with\\ spaces=x\n" +
		"h=\n" +
		"i\n" +
		"j==x\n" +
		"k=a=b:c\r\n" +
		"l=last\r" +
		"m=cr-only"
	p, err := ParseProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a":               "1",
		"b":               "two",
		"c":               "three words  ",
		"d":               "indented",
		"e":               "continued lineend",
		"f":               `back\slash`,
		"g":               "tab\thereA",
		"key with spaces": "x",
		"h":               "",
		"i":               "",
		"j":               "=x",
		"k":               "a=b:c",
		"l":               "last",
		"m":               "cr-only",
	}
	for k, v := range want {
		if got, ok := p.Get(k); !ok || got != v {
			t.Errorf("%q = %q (set %v), want %q", k, got, ok, v)
		}
	}
	if len(p.Keys()) != len(want) {
		t.Errorf("keys %v, want %d", p.Keys(), len(want))
	}
	// A comment line ending in a backslash does not continue.
	p, _ = ParseProperties(strings.NewReader("# x \\\nz=1\n"))
	if v, _ := p.Get("z"); v != "1" {
		t.Errorf("comment continued: z=%q", v)
	}
	if _, err := ParseProperties(strings.NewReader("x=\\u12\n")); err == nil {
		t.Error("malformed \\u escape accepted")
	}
}

func TestTypedGetters(t *testing.T) {
	p := NewProperties()
	p.Set("recordcount", "abc")
	p.Set("n", " 42 ")
	p.Set("big", "5000000000")
	p.Set("f", "0.5")
	p.Set("fd", "1e3d")
	p.Set("b", "TRUE")
	p.Set("bad", "yes")
	if _, err := p.Int64("recordcount", 0); err == nil || err.Error() != `recordcount: "abc" is not an integer` {
		t.Errorf("error %v", err)
	}
	if v, err := p.Int64("n", 0); err != nil || v != 42 {
		t.Errorf("n = %d, %v", v, err)
	}
	if v, err := p.Int64("missing", 7); err != nil || v != 7 {
		t.Errorf("default = %d, %v", v, err)
	}
	if _, err := p.Int("big", 0); err == nil {
		t.Error("int overflow accepted")
	}
	if v, _ := p.Float64("f", 0); v != 0.5 {
		t.Errorf("f = %v", v)
	}
	if v, _ := p.Float64("fd", 0); v != 1000 {
		t.Errorf("fd = %v", v)
	}
	if _, err := p.Float64("recordcount", 0); err == nil || !strings.Contains(err.Error(), "is not a number") {
		t.Errorf("float error %v", err)
	}
	if v, _ := p.Bool("b", false); !v {
		t.Error("TRUE is not true")
	}
	if _, err := p.Bool("bad", false); err == nil {
		t.Error("yes accepted as a boolean")
	}
	if p.String("missing", "d") != "d" {
		t.Error("string default")
	}
}

func TestLoadPropertiesLayering(t *testing.T) {
	dir := t.TempDir()
	f1, f2 := dir+"/one", dir+"/two"
	writeFile(t, f1, "recordcount=10\nfieldcount=3\n")
	writeFile(t, f2, "recordcount=20\n")
	p, err := LoadProperties([]string{"workloada", f1, f2}, []string{"fieldcount=5", "x=a=b"})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"recordcount":         "20",      // later file wins
		"fieldcount":          "5",       // -p wins over files
		"readproportion":      "0.5",     // from workloada
		"requestdistribution": "zipfian", // from workloada
		"x":                   "a=b",     // value may contain '='
		"workload":            "site.ycsb.workloads.CoreWorkload",
	} {
		if got := p.String(k, ""); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, err := LoadProperties(nil, []string{"novalue"}); err == nil {
		t.Error("override without '=' accepted")
	}
	if _, err := LoadProperties([]string{"nosuchworkload"}, nil); err == nil {
		t.Error("unknown workload accepted")
	}
}

func TestResolveWorkloadNames(t *testing.T) {
	for ref, want := range map[string]string{
		"workloada":  "embedded:workloada",
		"a":          "embedded:workloada",
		"F":          "embedded:workloadf",
		"S2":         "embedded:workloadS2",
		"s5":         "embedded:workloadS5",
		"workloadS1": "embedded:workloadS1",
	} {
		src, data, err := ResolveWorkload(ref)
		if err != nil || src != want || len(data) == 0 {
			t.Errorf("ResolveWorkload(%q) = %q, %d bytes, %v; want %q", ref, src, len(data), err, want)
		}
	}
	if _, _, err := ResolveWorkload("/no/such/file"); err == nil {
		t.Error("missing path accepted")
	}
	if got := len(EmbeddedWorkloads()); got != 11 {
		t.Errorf("%d embedded workloads, want 11", got)
	}
}

// TestEmbeddedWorkloadContents checks each shipped workload against the
// spec's table (and that every one builds a valid workload).
func TestEmbeddedWorkloadContents(t *testing.T) {
	type mix struct {
		read, update, insert, scan, rmw float64
		dist                            string
		recordcount                     string
	}
	for name, want := range map[string]mix{
		"workloada":  {0.5, 0.5, 0, 0, 0, "zipfian", "1000"},
		"workloadb":  {0.95, 0.05, 0, 0, 0, "zipfian", "1000"},
		"workloadc":  {1, 0, 0, 0, 0, "zipfian", "1000"},
		"workloadd":  {0.95, 0, 0.05, 0, 0, "latest", "1000"},
		"workloade":  {0, 0, 0.05, 0.95, 0, "zipfian", "1000"},
		"workloadf":  {0.5, 0, 0, 0, 0.5, "zipfian", "1000"},
		"workloadS1": {0, 0, 1, 0, 0, "uniform", "5000000"},
		"workloadS2": {0.1, 0.9, 0, 0, 0, "uniform", "5000000"},
		"workloadS3": {0.65, 0.1, 0.25, 0, 0, "uniform", "5000000"},
		"workloadS4": {0.9, 0.05, 0.05, 0, 0, "uniform", "5000000"},
		"workloadS5": {1, 0, 0, 0, 0, "uniform", "5000000"},
	} {
		p, err := LoadProperties([]string{name}, nil)
		if err != nil {
			t.Fatal(err)
		}
		get := func(k string) float64 { v, _ := p.Float64(k, 0); return v }
		got := mix{get("readproportion"), get("updateproportion"), get("insertproportion"), get("scanproportion"),
			get("readmodifywriteproportion"), p.String("requestdistribution", ""), p.String("recordcount", "")}
		if got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
		if p.String("readallfields", "") != "true" {
			t.Errorf("%s: readallfields not true", name)
		}
		if name[len(name)-2] == 'S' {
			if p.String("fieldcount", "") != "8" || p.String("fieldlength", "") != "250" || p.String("insertorder", "") != "hashed" {
				t.Errorf("%s: fieldcount/fieldlength/insertorder %s/%s/%s", name, p.String("fieldcount", ""), p.String("fieldlength", ""), p.String("insertorder", ""))
			}
			// Keep the test fast: latest/zeta over 5M items is not needed.
			p.Set("recordcount", "1000")
		}
		if _, err := NewWorkload(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	p, _ := LoadProperties([]string{"workloade"}, nil)
	if p.String("maxscanlength", "") != "100" || p.String("scanlengthdistribution", "") != "uniform" {
		t.Error("workloade scan settings")
	}
}
