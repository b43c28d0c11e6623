package syncbuf

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

func TestConcurrentWritesAndLines(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				_, _ = fmt.Fprintf(&b, "g%d line %d\n", g, i)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := len(b.Lines("line")); n != 800 {
		t.Errorf("%d lines, want 800", n)
	}
	if got := b.Lines("g3 ", "line 42"); !reflect.DeepEqual(got, []string{"g3 line 42"}) {
		t.Errorf("Lines = %q", got)
	}
}
