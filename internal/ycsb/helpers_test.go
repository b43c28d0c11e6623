package ycsb

import (
	"os"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// props builds properties from key=value pairs.
func props(kv ...string) *Properties {
	p := NewProperties()
	for _, s := range kv {
		k, v, _ := ParseOverride(s)
		p.Set(k, v)
	}
	return p
}
