package v1alpha1_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/mongobench/mongobench/internal/testutil/kube"
)

// crdRule is one x-kubernetes-validations entry of the generated CRD: what
// the API server enforces, as opposed to the Go markers it came from.
type crdRule struct {
	// path is where the rule sits, in field terms: ".spec.workload.properties",
	// ".spec.phases[].workload.properties".
	path                             string
	rule, message, messageExpression string
}

// crdRules returns the CEL rules of the generated BenchmarkRun CRD (the
// file envtest installs) whose message or messageExpression contains text.
func crdRules(t *testing.T, text string) []crdRule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(kube.RepoRoot(), "config", "crd", "bases", "bench.mongobench.io_benchmarkruns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	var out []crdRule
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e, path)
			}
		case map[string]any:
			if rules, ok := v["x-kubernetes-validations"].([]any); ok {
				for _, r := range rules {
					m, _ := r.(map[string]any)
					str := func(k string) string { s, _ := m[k].(string); return s }
					cr := crdRule{path: path, rule: str("rule"), message: str("message"), messageExpression: str("messageExpression")}
					if strings.Contains(cr.message, text) || strings.Contains(cr.messageExpression, text) {
						out = append(out, cr)
					}
				}
			}
			if props, ok := v["properties"].(map[string]any); ok {
				for name, child := range props {
					walk(child, path+"."+name)
				}
			}
			if items, ok := v["items"]; ok {
				walk(items, path+"[]")
			}
			// The schema itself, under versions[].schema.openAPIV3Schema.
			for _, k := range []string{"spec", "versions", "schema", "openAPIV3Schema"} {
				if child, ok := v[k]; ok {
					walk(child, path)
				}
			}
		}
	}
	walk(crd, "")
	slices.SortFunc(out, func(a, b crdRule) int { return strings.Compare(a.path, b.path) })
	if len(out) == 0 {
		t.Fatalf("the CRD has no CEL rule whose message contains %q", text)
	}
	return out
}

// celStrings returns the string literals of the first CEL list literal that
// follows prefix in expr: `!['a', 'b'].exists(` with prefix `![` gives a, b.
func celStrings(t *testing.T, expr, prefix string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(expr, prefix)
	if !ok {
		t.Fatalf("%q not found in %s", prefix, expr)
	}
	list, _, ok := strings.Cut(rest, "]")
	if !ok {
		t.Fatalf("unterminated list after %q in %s", prefix, expr)
	}
	var out []string
	for _, m := range regexp.MustCompile(`'([^']*)'`).FindAllStringSubmatch(list, -1) {
		out = append(out, m[1])
	}
	return out
}
