package loader

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestConfigureGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	restore := ConfigureGC(func(string) string { return "" })
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after restore: %d, want 100", got)
	}
	ConfigureGC(func(k string) string { return map[string]string{"GOGC": "50"}[k] })()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: the loader changed the GC percent to %d", got)
	}
}

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name            string
		live, scannable int64
		want            int
	}{
		{"nothing measured yet", 0, 0, DefaultGCPercent},
		{"all scannable", 30 * mb, 30 * mb, DefaultGCPercent},
		{"small heap", 3 * mb, 1 * mb, DefaultGCPercent},
		// 12 MB of histograms and acknowledgement window, 2 MB else:
		// cycles of 16 MB (the minimum), not 56.
		{"pointer-free memory dominates", 14 * mb, 2 * mb, DefaultGCPercent * 4 / 14},
		// 20 MB scannable: cycles of 80 MB, as GOGC=400 gives 20 MB.
		{"a large scannable heap", 40 * mb, 20 * mb, DefaultGCPercent / 2},
		// Scannable allocations since the last collection.
		{"more scannable than marked live", 5 * mb, 6 * mb, DefaultGCPercent},
		{"thousands of threads", 2000 * mb, 3 * mb, 1},
	} {
		if got := gcPercent(c.live, c.scannable); got != c.want {
			t.Errorf("%s: gcPercent(%d MB, %d MB) = %d, want %d", c.name, c.live/mb, c.scannable/mb, got, c.want)
		}
	}
}

// TestGCPacer: the pacer sets the percent only when it changes.
func TestGCPacer(t *testing.T) {
	const mb = 1 << 20
	live, scannable := int64(14*mb), int64(2*mb)
	var set []int
	p := &gcPacer{read: func() (int64, int64) { return live, scannable }, set: func(v int) int { set = append(set, v); return 0 },
		last: DefaultGCPercent}
	p.step()
	p.step()
	live, scannable = 30*mb, 30*mb
	p.step()
	if want := []int{DefaultGCPercent * 4 / 14, DefaultGCPercent}; len(set) != len(want) || set[0] != want[0] || set[1] != want[1] {
		t.Errorf("percents set %v, want %v", set, want)
	}
}

// TestReadHeap: 16 MB without pointers count in the live heap, not in its
// scannable part.
func TestReadHeap(t *testing.T) {
	ballast := make([]int64, 2<<20)
	runtime.GC()
	live, scannable := readHeap()
	if live < 16<<20 {
		t.Errorf("live heap %d with 16 MB held: the runtime metric %s is not read", live, liveHeap)
	}
	if scannable <= 0 || scannable > live-16<<20 {
		t.Errorf("scannable heap %d of %d live, want > 0 and without the 16 MB of int64s (%s)", scannable, live, scanHeap)
	}
	runtime.KeepAlive(ballast)
}
