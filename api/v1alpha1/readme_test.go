package v1alpha1_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEManifestsAreAccepted: every complete manifest the README shows
// (a yaml block starting with apiVersion) is accepted by the API server as
// written.
func TestREADMEManifestsAreAccepted(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t)
	ns := namespace(t, c)
	n := 0
	for _, block := range strings.Split(string(readme), "```yaml\n")[1:] {
		manifest, _, _ := strings.Cut(block, "```")
		if !strings.HasPrefix(manifest, "apiVersion:") {
			continue // a fragment of a spec
		}
		n++
		if _, err := create(t, c, ns, manifest); err != nil {
			t.Errorf("the README's manifest is rejected: %v\n%s", err, manifest)
		}
	}
	if n < 2 {
		t.Errorf("found %d complete manifests in the README", n)
	}
}
