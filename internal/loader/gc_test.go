package loader

import (
	"runtime/debug"
	"testing"
)

func TestConfigureGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	restore := ConfigureGC(func(string) string { return "" })
	if got := debug.SetGCPercent(DefaultGCPercent); got != DefaultGCPercent {
		t.Errorf("GC percent %d, want %d", got, DefaultGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after restore: %d, want 100", got)
	}
	ConfigureGC(func(k string) string { return map[string]string{"GOGC": "50"}[k] })()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: the loader changed the GC percent to %d", got)
	}
}
