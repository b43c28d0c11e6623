// Package topology builds the Kubernetes objects of a BenchmarkRun: the
// MongoDB pods, their Services and volumes, and the Jobs that bootstrap the
// topology and run the loaders. Builders are pure: a run (and settings) in,
// objects out, no client; the controller decides when to create them.
package topology
