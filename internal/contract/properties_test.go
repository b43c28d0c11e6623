package contract_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/testutil/golits"
)

// propertyKeys are the values of this package's Prop* constants: every
// loader property the controller writes.
func propertyKeys(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Prop") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: %s is not a string literal", fset.Position(n.Pos()), n.Name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					if other, dup := keys[v]; dup {
						t.Errorf("%s and %s are both %q", other, n.Name, v)
					}
					keys[v] = n.Name
				}
			}
		}
	}
	return keys
}

// TestPropertyKeysHaveOneHome: a loader property the controller writes is
// written once, here; the Job builders, the loader's readers and its
// property registry name the constant.
func TestPropertyKeysHaveOneHome(t *testing.T) {
	keys := propertyKeys(t)
	for _, want := range []string{"recordcount", "operationcount", "measurement.interval", "mongodb.url", "loader.count", "growth.targetrecords"} {
		if keys[want] == "" {
			t.Fatalf("no Prop constant is %q: does propertyKeys still find them? (%d found)", want, len(keys))
		}
	}
	for _, l := range golits.Production(t, "../..") {
		if name, ok := keys[l.Value]; ok && !strings.HasPrefix(l.File, "internal/contract/") {
			t.Errorf("%s: use contract.%s", l, name)
		}
	}
}
