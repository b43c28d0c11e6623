package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the file at path, or, with update, writes got
// there (creating its directory). rewrite is the command that rewrites
// the file, for the messages.
func Check(t testing.TB, path string, got []byte, update bool, rewrite string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s creates it)", err, rewrite)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (%s rewrites it; review the diff):\n%s", path, rewrite, got)
	}
}
