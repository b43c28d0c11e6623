package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; panic(r) }
func (r *recorder) Fatal(...any)          { r.failed = true; panic(r) }
func check(path string, got []byte, update bool) (failed bool) {
	r := &recorder{}
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
		failed = r.failed
	}()
	Check(r, path, got, update, "go test -update")
	return r.failed
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.txt")
	if !check(path, []byte("a"), false) {
		t.Error("a missing golden file passed")
	}
	if check(path, []byte("a"), true) {
		t.Error("-update failed")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	if check(path, []byte("a"), false) {
		t.Error("equal output failed")
	}
	if !check(path, []byte("b"), false) {
		t.Error("different output passed")
	}
}
