package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/contract"
)

// The environment's fields that differ between runs are what changes
// comparability (here a node's kernel), not the URL every run's phases
// record with its own hosts: the fingerprint leaves that out, and so does
// the report.
func TestEnvironmentLeavesOutRunNamedFields(t *testing.T) {
	s := sweepStudy(t, "pool")
	recorded := false
	for _, r := range s.Runs {
		for _, ph := range r.Status.Environment.Phases {
			recorded = recorded || ph.Properties[contract.PropMongoDBURL] != ""
		}
	}
	if !recorded {
		t.Fatal("the fixture's runs record no mongodb.url: the test would prove nothing")
	}
	env := s.compareEnvironments()
	var differ []string
	for _, d := range env.Differ {
		differ = append(differ, d.Field)
	}
	for _, f := range append(append([]string{}, differ...), fieldNames(env.Common)...) {
		if strings.Contains(f, contract.PropMongoDBURL) {
			t.Errorf("environment lists %s", f)
		}
	}
	// The axes (threads, maxPoolSize) and one repetition's kernel.
	want := []string{"node.kernelVersion", "phases[load].mongodb.maxPoolSize", "phases[load].threadcount",
		"phases[run].mongodb.maxPoolSize", "phases[run].threadcount"}
	if !slices.Equal(differ, want) {
		t.Errorf("fields that differ: %v, want %v", differ, want)
	}
	var md bytes.Buffer
	if err := Markdown(&md, s, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), contract.PropMongoDBURL) {
		t.Error("the Markdown report names mongodb.url")
	}
}

func fieldNames(fs []envField) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}
