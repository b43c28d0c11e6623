// Package images_test checks the Dockerfiles by reading them: there is no
// container engine where make test runs.
package images_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// dockerfiles finds every Dockerfile of the repository.
func dockerfiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (d.Name() == "Dockerfile" || strings.HasSuffix(d.Name(), ".Dockerfile")) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 2 {
		t.Fatalf("found %d Dockerfiles (%v), want the manager's and the loader's at least", len(out), out)
	}
	return out
}

// platformArg matches a declaration of one of BuildKit's automatic
// platform arguments with a default value: "ARG TARGETARCH=amd64".
var platformArg = regexp.MustCompile(`(?i)^\s*ARG\s+.*\b((?:TARGET|BUILD)(?:PLATFORM|OS|ARCH|VARIANT))\s*=`)

// TestPlatformArgsHaveNoDefaults: in BuildKit a stage's ARG TARGETARCH with
// a default keeps the default instead of the automatic platform value
// (docker/buildx#510), so an arm64 build would wrap amd64 binaries and
// crash with "exec format error" (or, emulated, run benchmarks slowly).
func TestPlatformArgsHaveNoDefaults(t *testing.T) {
	for _, path := range dockerfiles(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		uses := false
		for i, line := range strings.Split(string(b), "\n") {
			if m := platformArg.FindStringSubmatch(line); m != nil {
				t.Errorf("%s:%d: %s has a default; declare it bare (ARG %s) so BuildKit sets it: %s", path, i+1, m[1], m[1], strings.TrimSpace(line))
			}
			uses = uses || strings.Contains(line, "GOARCH=$TARGETARCH")
		}
		if !uses {
			t.Errorf("%s does not build for $TARGETARCH", path)
		}
	}
}

func TestPlatformArgPattern(t *testing.T) {
	for line, want := range map[string]bool{
		"ARG TARGETARCH=amd64":        true,
		"ARG TARGETOS=linux":          true,
		"  arg BUILDPLATFORM=x":       true,
		"ARG TARGETOS TARGETARCH":     false,
		"ARG TARGETARCH":              false,
		"ARG VERSION=v0.1.0":          false,
		"ARG GO_VERSION=1.26.8":       false,
		"ARG FOO=1 TARGETARCH=arm64":  true,
		"# ARG TARGETARCH=amd64 note": false,
	} {
		if got := platformArg.MatchString(line); got != want {
			t.Errorf("%q: match %v, want %v", line, got, want)
		}
	}
}
