package loader

import "runtime/debug"

// DefaultGCPercent is the loader's GC target when GOGC is not set. Its live
// heap is small and does not grow with the run (the latency histograms:
// about 15 MB with 8 threads), so at Go's default (100) it collects every
// ~15 MB allocated, about every 2,000 operations: some 2.5 µs of client CPU
// per operation, 8% of a whole operation against a fast server. At 400 the
// heap peaks near 75 MB and GC costs a quarter of that.
const DefaultGCPercent = 400

// ConfigureGC applies DefaultGCPercent unless the GOGC environment variable
// is set (the user's choice wins), and returns a function restoring the
// previous setting. cmd/loader calls it once at start-up.
func ConfigureGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(DefaultGCPercent)
	return func() { debug.SetGCPercent(old) }
}
