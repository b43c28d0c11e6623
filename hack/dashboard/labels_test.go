package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// labelNamesFile is the contract's label names and result values
// (internal/contract TestLabelNamesFile keeps it exact).
var labelNamesFile = filepath.Join("..", "..", "charts", "mongobench", "dashboards", "label-names.txt")

// TestLabelsAreTheContracts: every label name (label*) and result value
// (result*) this module spells in metrics.go, and so every label its
// queries select or group by, is one of the contract's: a label renamed in
// internal/contract and not here fails.
func TestLabelsAreTheContracts(t *testing.T) {
	known := map[string]bool{}
	for _, line := range strings.Fields(string(readFile(t, labelNamesFile))) {
		known[line] = true
	}
	f, err := parser.ParseFile(token.NewFileSet(), "metrics.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var checked int
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s is not a literal", name.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				var want string
				switch {
				case strings.HasPrefix(name.Name, "label"):
					want = v
				case strings.HasPrefix(name.Name, "result"):
					want = "result=" + v
				default:
					continue
				}
				checked++
				if !known[want] {
					t.Errorf("%s = %q: %s does not list %q", name.Name, v, labelNamesFile, want)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d label constants", checked)
	}
}
