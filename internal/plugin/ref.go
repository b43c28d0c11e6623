package plugin

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Kind is the kind of resource a reference names.
type Kind int

// Kinds a reference can name. A new kind is one constant and one entry in
// kinds.
const (
	// KindRun is a BenchmarkRun.
	KindRun Kind = iota + 1
	// KindSweep is a BenchmarkSweep.
	KindSweep
)

// kindInfo describes a kind: the word used in messages and every name a
// user may type for it (kubectl's resource, singular, short names and the
// fully qualified resource), lower case.
type kindInfo struct {
	word    string
	aliases []string
}

var kinds = map[Kind]kindInfo{
	KindRun: {
		word: "run",
		aliases: []string{
			"run", "runs", "benchmarkrun", "benchmarkruns", "br", "bench",
			"benchmarkrun.bench.mongobench.io", "benchmarkruns.bench.mongobench.io",
		},
	},
	KindSweep: {
		word: "sweep",
		aliases: []string{
			"sweep", "sweeps", "benchmarksweep", "benchmarksweeps", "bsw",
			"benchmarksweep.bench.mongobench.io", "benchmarksweeps.bench.mongobench.io",
		},
	},
}

// String is the word used for the kind in references and messages ("run").
func (k Kind) String() string {
	if info, ok := kinds[k]; ok {
		return info.word
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Ref names one resource: KIND/NAME.
type Ref struct {
	Kind Kind
	Name string
}

// String prints the reference as a user writes it (run/NAME).
func (r Ref) String() string { return r.Kind.String() + "/" + r.Name }

// ParseRef parses KIND/NAME, or a bare NAME, which means a run. KIND is
// any of kubectl's names for the resource, case-insensitive (run/x,
// benchmarkrun/x, br/x, benchmarkruns/x, sweep/x, bsw/x, ...). allowed
// lists the kinds the command accepts (all when empty).
func ParseRef(s string, allowed ...Kind) (Ref, error) {
	kindPart, name, hasKind := strings.Cut(s, "/")
	if !hasKind {
		kindPart, name = KindRun.String(), s
	}
	kind, ok := kindOf(kindPart)
	if !ok {
		return Ref{}, fmt.Errorf("%q: unknown resource type %q (want %s)", s, kindPart, wantedRefs(allowed))
	}
	if len(allowed) > 0 && !containsKind(allowed, kind) {
		return Ref{}, fmt.Errorf("%q: this command takes %s, not a %s", s, wantedRefs(allowed), kind)
	}
	if name == "" {
		return Ref{}, fmt.Errorf("%q: the name is missing (want %s)", s, wantedRefs(allowed))
	}
	// Checking the name here turns a typo such as run/a/b into a usage
	// error instead of a confusing 404 from the API server.
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return Ref{}, fmt.Errorf("%q: invalid name %q: %s", s, name, strings.Join(errs, "; "))
	}
	return Ref{Kind: kind, Name: name}, nil
}

func kindOf(s string) (Kind, bool) {
	s = strings.ToLower(s)
	for k, info := range kinds {
		for _, a := range info.aliases {
			if a == s {
				return k, true
			}
		}
	}
	return 0, false
}

func containsKind(ks []Kind, k Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// wantedRefs describes the accepted references for messages: "run/NAME".
func wantedRefs(allowed []Kind) string {
	if len(allowed) == 0 {
		for k := range kinds {
			allowed = append(allowed, k)
		}
	}
	out := make([]string, 0, len(allowed))
	for _, k := range allowed {
		out = append(out, k.String()+"/NAME")
	}
	sort.Strings(out)
	return strings.Join(out, " or ")
}
