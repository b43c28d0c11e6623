package loader

import (
	"fmt"
	"io"
	"strings"

	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// helpGroups is the order of the sections of `loader load|run -h`.
var helpGroups = []ycsb.Group{ycsb.GroupCore, ycsb.GroupClient, mongodb.Group, ycsb.GroupLoader}

// commandProperties are the properties `loader load|run` reads or accepts
// besides the engine's (ycsb.KnownProperties): the YCSB client's that the
// command handles, and the binding's (mongodb.KnownProperties).
// TestKnownPropertiesMatchTheCode keeps the list and the code in step.
var commandProperties = append([]ycsb.Property{
	{Name: "workload", Default: coreWorkloadClasses[0], Group: ycsb.GroupCore, Meaning: "workload class; only CoreWorkload"},
	{Name: "exporter", Default: textExporters[0], Group: ycsb.GroupClient, Meaning: "report format; only the text report"},
	{Name: "exportfile", Group: ycsb.GroupClient, Meaning: "file the text report goes to (unset: stdout)"},
	// bin/ycsb passes -db and -load/-t itself, so YCSB ignores these in a
	// workload file too.
	{Name: "db", Group: ycsb.GroupClient, Meaning: "YCSB's binding class",
		Ignored: "the binding is MongoDB's (loader load|run [mongodb])"},
	{Name: "dotransactions", Group: ycsb.GroupClient, Meaning: "YCSB's load (false) or run (true) switch",
		Ignored: "the command (load or run) decides"},
}, mongodb.KnownProperties()...)

// KnownProperties returns every property `loader load|run` reads or
// accepts: the engine's (ycsb.KnownProperties), the command's and the
// binding's (mongodb.KnownProperties). Any other key draws an "unknown property" warning. The slice
// is the caller's.
func KnownProperties() []ycsb.Property {
	return append(ycsb.KnownProperties(), commandProperties...)
}

// propertyWarnings returns a warning for each property of p that the
// loader does not know, with the closest known name when one is close
// (YCSB ignores unknown keys silently, so a typo would go unnoticed), and
// for each known property it ignores. Neither stops the run.
func propertyWarnings(p *ycsb.Properties) []string {
	return propertyWarningsFor(p, KnownProperties())
}

// propertyWarningsFor is propertyWarnings against the given registry.
func propertyWarningsFor(p *ycsb.Properties, known []ycsb.Property) []string {
	byName := make(map[string]ycsb.Property, len(known))
	names := make([]string, 0, len(known))
	for _, kp := range known {
		byName[kp.Name] = kp
		names = append(names, kp.Name)
	}
	var warnings []string
	for _, k := range p.Keys() {
		kp, ok := byName[k]
		switch {
		case !ok:
			w := fmt.Sprintf("unknown property %q", k)
			if s := suggest(k, names); s != "" {
				w += fmt.Sprintf(" (did you mean %q?)", s)
			}
			warnings = append(warnings, w+"; it is ignored")
		case kp.Ignored != "":
			warnings = append(warnings, fmt.Sprintf("property %q is ignored: %s", k, kp.Ignored))
		}
	}
	return warnings
}

// suggest returns the name closest to key by Damerau–Levenshtein distance,
// ignoring case (YCSB's keys are case-sensitive, so mongodb.writeconcern
// is a typo too), or "" when none is within a quarter of key's length
// (at least 1, at most 3 edits): beyond that a suggestion is a guess.
func suggest(key string, names []string) string {
	k := []rune(strings.ToLower(key))
	limit := min(max(len(k)/4, 1), 3)
	best, bestDist := "", limit+1
	for _, n := range names {
		d := editDistance(k, []rune(strings.ToLower(n)))
		if d < bestDist || (d == bestDist && n < best) {
			best, bestDist = n, d
		}
	}
	if bestDist > limit {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent runes ("ro" for
// "or") each cost 1.
func editDistance(a, b []rune) int {
	// Three rows of the dynamic programme: i-2, i-1, i.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Column limits of the property table: a longer name or default keeps its
// row, and the meaning moves to the next line, so one long default (the
// exporter's class) does not push every meaning off the screen.
const (
	helpNameWidth    = 27
	helpDefaultWidth = 12
)

// writePropertyHelp prints the property table of `loader load|run -h`:
// every known property by group, with its default ("-": none) and meaning.
func writePropertyHelp(w io.Writer) {
	writePropertyHelpFor(w, KnownProperties(), helpGroups)
}

// writePropertyHelpFor prints the property table of props, by group in the
// order of groups.
func writePropertyHelpFor(w io.Writer, props []ycsb.Property, groups []ycsb.Group) {
	nameW, defW := 0, 0
	for _, p := range props {
		if n := len(p.Name); n <= helpNameWidth {
			nameW = max(nameW, n)
		}
		if n := len(helpDefault(p)); n <= helpDefaultWidth {
			defW = max(defW, n)
		}
	}
	indent := strings.Repeat(" ", 2+nameW+2+defW+2)
	var b strings.Builder
	b.WriteString("\nProperties (-P file, then -p name=value, then the flags; a later setting wins; default \"-\": none):\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "\n%s:\n", g)
		for _, p := range props {
			if p.Group != g {
				continue
			}
			meaning := p.Meaning
			if p.Ignored != "" {
				meaning += "; ignored: " + p.Ignored
			}
			def := helpDefault(p)
			if len(p.Name) > nameW || len(def) > defW {
				fmt.Fprintf(&b, "  %-*s  %s\n%s%s\n", nameW, p.Name, def, indent, meaning)
				continue
			}
			fmt.Fprintf(&b, "  %-*s  %-*s  %s\n", nameW, p.Name, defW, def, meaning)
		}
	}
	b.WriteString("\nOther keys are ignored with a warning. An ignored property is accepted for YCSB's sake and has no effect.\n")
	_, _ = io.WriteString(w, b.String())
}

func helpDefault(p ycsb.Property) string {
	if p.Default == "" {
		return "-"
	}
	return p.Default
}
