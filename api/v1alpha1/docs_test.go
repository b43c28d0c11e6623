package v1alpha1_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/mongobench/mongobench/internal/testutil/kube"
)

// The documentation's tests: the README and every page under docs/ (the
// manifests they show and their reason tables are checked in
// readme_test.go and reasons_test.go).

// docPages lists the README and the pages under docs/, relative to the
// repository's root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(kube.RepoRoot(), "docs", "*.md"))
	if err != nil || len(pages) < 10 {
		t.Fatalf("docs/*.md: %d pages, %v", len(pages), err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(kube.RepoRoot(), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rel)
	}
	return out
}

// readPage reads a page named as docPages names it.
func readPage(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(kube.RepoRoot(), page))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	mdLink   = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading  = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	htmlID   = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	linkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	scheme   = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
)

// prose returns a page's lines with those of fenced code blocks blanked:
// what Markdown renders as links and headings, line by line.
func prose(page string) []string {
	lines := strings.Split(page, "\n")
	fenced := false
	for i, line := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		if fence {
			fenced = !fenced
		}
		if fence || fenced {
			lines[i] = ""
		}
	}
	return lines
}

// anchors returns the anchors GitHub gives a page's headings (and its
// explicit <a id> anchors).
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose(page) {
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := slugify(m[1])
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// slugify is GitHub's heading anchor: the rendered text (links and code
// spans reduced to their text), lower-cased, without punctuation, spaces
// turned into hyphens.
func slugify(text string) string {
	text = linkText.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocLinksResolve: every relative link of the README and the pages
// under docs/ names a file or directory of the repository, and every
// anchor (#...) into a Markdown page names one of its headings.
func TestDocLinksResolve(t *testing.T) {
	root := kube.RepoRoot()
	n := 0
	for _, page := range docPages(t) {
		for i, line := range prose(readPage(t, page)) {
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, "code"), -1) {
				target := m[1]
				if scheme.MatchString(target) {
					continue // http:, https:, mailto:
				}
				n++
				path, anchor, _ := strings.Cut(target, "#")
				file := filepath.Join(root, page)
				if path != "" {
					file = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				}
				if rel, err := filepath.Rel(root, file); err != nil || strings.HasPrefix(rel, "..") {
					t.Errorf("%s:%d: %s leaves the repository", page, i+1, target)
					continue
				}
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: %s: %v", page, i+1, target, err)
					continue
				}
				if anchor == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if !anchors(string(b))[anchor] {
					t.Errorf("%s:%d: %s: no heading of %s has the anchor #%s", page, i+1, target, filepath.Base(file), anchor)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("found only %d relative links", n)
	}
}

// TestArchitectureMapsEveryPackage: docs/architecture.md's package map
// names every Go package under api/, cmd/, controllers/ and internal/.
func TestArchitectureMapsEveryPackage(t *testing.T) {
	root := kube.RepoRoot()
	doc := readPage(t, filepath.Join("docs", "architecture.md"))
	n := 0
	for _, top := range []string{"api", "cmd", "controllers", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			files, err := filepath.Glob(filepath.Join(path, "*.go"))
			if err != nil {
				return err
			}
			for _, f := range files {
				if !strings.HasSuffix(f, "_test.go") {
					rel, err := filepath.Rel(root, path)
					if err != nil {
						return err
					}
					n++
					if pkg := filepath.ToSlash(rel); !strings.Contains(doc, "| [`"+pkg+"`](../"+pkg+") |") {
						t.Errorf("docs/architecture.md's package map has no row for %s", pkg)
					}
					break
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 20 {
		t.Errorf("found only %d packages", n)
	}
}
