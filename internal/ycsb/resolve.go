package ycsb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/mongobench/mongobench/workloads"
)

// EmbeddedWorkloads returns the names of the workload files shipped in the
// binary (workloada..workloadf, workloadS1..workloadS5).
func EmbeddedWorkloads() []string {
	entries, err := fs.ReadDir(workloads.FS, ".")
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// ResolveWorkload returns the content of a workload file given as a path or
// as the name of an embedded workload: "workloada", "a", "S2", "workloadS2"
// (names are matched case-insensitively; a bare letter or S-number gets the
// "workload" prefix). An existing file wins over an embedded name, so a local
// "workloada" can shadow the built-in one, as with YCSB's -P.
func ResolveWorkload(ref string) (source string, data []byte, err error) {
	if ref == "" {
		return "", nil, errors.New("workload: empty name")
	}
	data, err = os.ReadFile(ref)
	if err == nil {
		return ref, data, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("workload %s: %w", ref, err)
	}
	if strings.ContainsRune(ref, os.PathSeparator) {
		return "", nil, fmt.Errorf("workload %s: %w", ref, err)
	}
	want := strings.ToLower(ref)
	for _, name := range EmbeddedWorkloads() {
		lower := strings.ToLower(name)
		if lower == want || lower == "workload"+want {
			data, err := fs.ReadFile(workloads.FS, name)
			if err != nil {
				return "", nil, fmt.Errorf("workload %s: %w", name, err)
			}
			return "embedded:" + name, data, nil
		}
	}
	return "", nil, fmt.Errorf("workload %q: no such file, and not a built-in workload (%s)",
		ref, strings.Join(EmbeddedWorkloads(), ", "))
}

// LoadProperties layers properties like YCSB's command line: each workload
// file (-P, a path or an embedded name) in order, later files overriding
// earlier ones, then the name=value overrides (-p) on top.
func LoadProperties(files []string, overrides []string) (*Properties, error) {
	p := NewProperties()
	for _, f := range files {
		source, data, err := ResolveWorkload(f)
		if err != nil {
			return nil, err
		}
		if err := p.Load(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("workload %s: %w", source, err)
		}
	}
	for _, kv := range overrides {
		k, v, err := ParseOverride(kv)
		if err != nil {
			return nil, err
		}
		p.Set(k, v)
	}
	return p, nil
}
