package wireserver

import (
	"strings"
	"testing"
)

// Without java the server cannot start, and the error says why and what to
// install (Start turns it into a test failure, never a skip).
func TestStartWithoutJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // an empty directory: no java, no mvn
	s, err := start()
	if err == nil {
		_ = s.Close()
		t.Fatal("start succeeded without java in PATH")
	}
	if !strings.Contains(err.Error(), "java is not installed") || !strings.Contains(err.Error(), "openjdk") {
		t.Errorf("error %q does not say that java is missing and how to install it", err)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{limit: 8}
	for _, s := range []string{"abc", "defgh", "ijk"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.String(); got != "defghijk" {
		t.Errorf("tail = %q, want %q", got, "defghijk")
	}
}
