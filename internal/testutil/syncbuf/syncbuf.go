package syncbuf

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is safe for concurrent writes and reads. The zero value is ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lines returns the lines written so far that contain every one of the
// substrings (all lines without substrings).
func (s *Buffer) Lines(substrings ...string) []string {
	var out []string
	for _, line := range strings.Split(s.String(), "\n") {
		match := true
		for _, sub := range substrings {
			match = match && strings.Contains(line, sub)
		}
		if match {
			out = append(out, line)
		}
	}
	return out
}
