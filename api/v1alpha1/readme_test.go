package v1alpha1_test

import (
	"strings"
	"testing"
)

// TestDocManifestsAreAccepted: every complete manifest the README and the
// pages under docs/ show (a yaml block starting with apiVersion) is
// accepted by the API server as written. Each page gets a namespace of its
// own, so two pages may show the same example.
func TestDocManifestsAreAccepted(t *testing.T) {
	c := newClient(t)
	n := 0
	for _, page := range docPages(t) {
		ns := namespace(t, c)
		for _, block := range strings.Split(readPage(t, page), "```yaml\n")[1:] {
			manifest, _, _ := strings.Cut(block, "```")
			if !strings.HasPrefix(manifest, "apiVersion:") {
				continue // a fragment of a spec
			}
			n++
			if _, err := create(t, c, ns, manifest); err != nil {
				t.Errorf("%s shows a manifest the API server rejects: %v\n%s", page, err, manifest)
			}
		}
	}
	if n < 4 {
		t.Errorf("found %d complete manifests in the README and docs/", n)
	}
}
