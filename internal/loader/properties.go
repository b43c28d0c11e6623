package loader

import (
	"fmt"
	"io"
	"strings"

	"github.com/mongobench/mongobench/internal/didyoumean"
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
			if s := didyoumean.Closest(k, names); s != "" {
				w += fmt.Sprintf(" (did you mean %q?)", s)
			}
			warnings = append(warnings, w+"; it is ignored")
		case kp.Ignored != "":
			warnings = append(warnings, fmt.Sprintf("property %q is ignored: %s", k, kp.Ignored))
		}
	}
	return warnings
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
