package sweep

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/didyoumean"
)

// unknownField is sigs.k8s.io/json's strict error for a field the type
// does not have; the path is dotted, a list item's index in brackets
// ("phases[1].threds"). TestExpandErrors fails should its wording change.
var unknownField = regexp.MustCompile(`^unknown field "([^"]+)"$`)

// hintedError is a strict decoding error with the field the patch most
// likely meant.
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return fmt.Sprintf("%s (did you mean %q?)", e.err, e.hint) }
func (e *hintedError) Unwrap() error { return e.err }

// withFieldHints adds a "did you mean" to each unknown field of a
// BenchmarkRun spec among errs (the strict decoder's), as the loader does
// for an unknown property: a patch's typo would otherwise fail the whole
// sweep with no clue to the field's right spelling.
func withFieldHints(errs []error) error {
	out := make([]error, len(errs))
	for i, err := range errs {
		out[i] = err
		m := unknownField.FindStringSubmatch(err.Error())
		if m == nil {
			continue
		}
		if hint := closestField(reflect.TypeFor[benchv1.BenchmarkRunSpec](), m[1]); hint != "" {
			out[i] = &hintedError{err: err, hint: hint}
		}
	}
	return errors.Join(out...)
}

// closestField returns path with its last element replaced by the closest
// JSON field name of the struct the rest of path leads to in t, or "" when
// the path leads nowhere or no name is close.
func closestField(t reflect.Type, path string) string {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		name, _, _ := strings.Cut(p, "[") // a list item's index
		f, ok := jsonFields(t)[name]
		if !ok {
			return ""
		}
		t = f
	}
	fields := jsonFields(t)
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	last := parts[len(parts)-1]
	hint := didyoumean.Closest(last, names)
	if hint == "" {
		return ""
	}
	parts[len(parts)-1] = hint
	return strings.Join(parts, ".")
}

// jsonFields maps the JSON names of struct t's fields (those of inlined
// structs included) to the types a path steps into: pointers dereferenced,
// a list's or map's element type. Anything but a struct has none.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := map[string]reflect.Type{}
	if t.Kind() != reflect.Struct {
		return out
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case name == "" && (f.Anonymous || strings.Contains(opts, "inline")):
			for n, ft := range jsonFields(f.Type) {
				out[n] = ft
			}
			continue
		case name == "":
			name = f.Name
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array || ft.Kind() == reflect.Map {
			ft = ft.Elem()
		}
		out[name] = ft
	}
	return out
}
