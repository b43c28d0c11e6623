// Package golits lists the string literals of the module's production Go
// code, for tests that keep a fact in one home: a label key, a property
// key. Production code is every .go file of the module but tests
// (_test.go), generated files (zz_generated*) and testdata; struct tags
// and import paths are not literals of the code.
package golits

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Literal is one string literal: its value, unquoted, and where it is.
type Literal struct {
	// File is the path relative to the module root, with slashes.
	File  string
	Line  int
	Value string
}

func (l Literal) String() string {
	return l.File + ":" + strconv.Itoa(l.Line) + ": " + strconv.Quote(l.Value)
}

// Production returns the string literals of the production Go files under
// root, the module's root directory.
func Production(t testing.TB, root string) []Literal {
	t.Helper()
	var out []Literal
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_generated") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		skip := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				skip[n.Path] = true
			case *ast.Field:
				if n.Tag != nil {
					skip[n.Tag] = true
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING || skip[n] {
					return true
				}
				v, err := strconv.Unquote(n.Value)
				if err != nil {
					t.Errorf("%s: %v", fset.Position(n.Pos()), err)
					return true
				}
				out = append(out, Literal{File: filepath.ToSlash(rel), Line: fset.Position(n.Pos()).Line, Value: v})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no string literals under %s: is it the module's root?", root)
	}
	return out
}
