package loader_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoaderImageCopiesEverything: loader-image/Dockerfile copies only the
// directories the loader is built from, so that controller changes keep
// the image's build cache warm. This keeps that list complete: every
// package of `go list -deps ./cmd/loader` in this module (embedded files
// included) must be under a COPY source that .dockerignore does not drop.
func TestLoaderImageCopiesEverything(t *testing.T) {
	root := repoRoot()
	copied, ignored := dockerfileCopies(t, filepath.Join(root, "loader-image", "Dockerfile")), dockerignore(t, root)
	for _, c := range copied {
		for _, ig := range ignored {
			if c == ig || strings.HasPrefix(c, ig+"/") {
				t.Errorf("COPY %s/ is excluded by .dockerignore's %q", c, ig)
			}
		}
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.Module}} {{.Dir}}", "./cmd/loader")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		mod, dir, _ := strings.Cut(line, " ")
		if mod != "github.com/mongobench/mongobench" {
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		covered := false
		for _, c := range copied {
			if rel == c || strings.HasPrefix(rel, c+"/") {
				covered = true
			}
		}
		if !covered {
			t.Errorf("the loader is built from %s, which loader-image/Dockerfile does not COPY", rel)
		}
	}
}

// dockerfileCopies returns the source directories of the build stage's COPY
// instructions (not COPY --from).
func dockerfileCopies(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var dirs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || fields[0] != "COPY" || strings.HasPrefix(fields[1], "--") {
			continue
		}
		for _, src := range fields[1 : len(fields)-1] {
			dirs = append(dirs, strings.TrimSuffix(filepath.Clean(src), "/"))
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no COPY in the Dockerfile")
	}
	return dirs
}

// dockerignore returns the plain path patterns of the repository's
// .dockerignore (the build context is the repository root).
func dockerignore(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") || strings.ContainsAny(line, "*?[") {
			continue
		}
		patterns = append(patterns, strings.TrimSuffix(filepath.Clean(line), "/"))
	}
	return patterns
}
