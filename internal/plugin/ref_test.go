package plugin

import (
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Ref
		wantErr string
	}{
		{in: "run/demo", want: Ref{KindRun, "demo"}},
		{in: "benchmarkrun/demo", want: Ref{KindRun, "demo"}},
		{in: "benchmarkruns/demo", want: Ref{KindRun, "demo"}},
		{in: "br/demo", want: Ref{KindRun, "demo"}},
		{in: "bench/demo", want: Ref{KindRun, "demo"}},
		{in: "BenchmarkRun/demo", want: Ref{KindRun, "demo"}},
		{in: "benchmarkruns.bench.mongobench.io/demo", want: Ref{KindRun, "demo"}},
		{in: "demo", want: Ref{KindRun, "demo"}},
		{in: "study.s1", want: Ref{KindRun, "study.s1"}},
		{in: "sweep/demo", wantErr: `this command takes run/NAME, not a sweep`},
		{in: "frob/demo", wantErr: `unknown resource type "frob" (want run/NAME)`},
		{in: "pod/demo", wantErr: `unknown resource type "pod"`},
		{in: "run/", wantErr: "the name is missing"},
		{in: "", wantErr: "the name is missing"},
		{in: "run/a/b", wantErr: `invalid name "a/b"`},
		{in: "run/Demo", wantErr: `invalid name "Demo"`},
		{in: "run/demo_1", wantErr: `invalid name`},
	} {
		got, err := ParseRef(tc.in, KindRun)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseRef(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRef(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if err == nil && got.String() != "run/"+tc.want.Name {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

// Every alias names exactly one kind, or a reference would be ambiguous
// once more kinds (sweeps) are added.
func TestKindAliasesUnique(t *testing.T) {
	seen := map[string]Kind{}
	for k, info := range kinds {
		for _, a := range info.aliases {
			if a != strings.ToLower(a) {
				t.Errorf("alias %q of %s is not lower case", a, k)
			}
			if other, dup := seen[a]; dup {
				t.Errorf("alias %q names both %s and %s", a, other, k)
			}
			seen[a] = k
		}
		if _, ok := kindOf(info.word); !ok {
			t.Errorf("the word %q of %s is not an alias", info.word, k)
		}
	}
}

func TestParseSweepRef(t *testing.T) {
	for _, in := range []string{"sweep/s", "sweeps/s", "bsw/s", "BenchmarkSweep/s", "benchmarksweeps/s",
		"benchmarksweep.bench.mongobench.io/s", "benchmarksweeps.bench.mongobench.io/s"} {
		got, err := ParseRef(in, KindRun, KindSweep)
		if err != nil || got != (Ref{KindSweep, "s"}) || got.String() != "sweep/s" {
			t.Errorf("ParseRef(%q) = %v, %v; want sweep/s", in, got, err)
		}
	}
	// A bare name is still a run, whatever the command accepts.
	if got, err := ParseRef("s", KindRun, KindSweep); err != nil || got != (Ref{KindRun, "s"}) {
		t.Errorf("ParseRef(s) = %v, %v; want run/s", got, err)
	}
	if _, err := ParseRef("sweep/s", KindRun); err == nil || !strings.Contains(err.Error(), "this command takes run/NAME, not a sweep") {
		t.Errorf("sweep/s where only runs go: %v", err)
	}
}
