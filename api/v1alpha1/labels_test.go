package v1alpha1_test

import (
	"strings"
	"testing"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/testutil/golits"
)

// TestLabelKeysHaveOneHome: a label key users and tools select on is
// written once, in labels.go; everything else names its constant. The one
// exception is the loader's contract.LabelLoaderIndex (see labels.go).
func TestLabelKeysHaveOneHome(t *testing.T) {
	for _, l := range golits.Production(t, "../..") {
		if !strings.Contains(l.Value, "bench.mongobench.io/") && !strings.Contains(l.Value, "app.kubernetes.io/") {
			continue
		}
		if l.File == "api/v1alpha1/labels.go" || l.File == "internal/contract/contract.go" && l.Value == contract.LabelLoaderIndex {
			continue
		}
		t.Errorf("%s: a label key belongs in api/v1alpha1/labels.go (or, for an API version, use GroupVersion)", l)
	}
	if _, key, _ := strings.Cut(benchv1.LabelRun, "/"); !strings.HasPrefix(contract.LabelLoaderIndex, strings.TrimSuffix(benchv1.LabelRun, key)) {
		t.Errorf("contract.LabelLoaderIndex %q is not in the bench.mongobench.io/ prefix", contract.LabelLoaderIndex)
	}
}
