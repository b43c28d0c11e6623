// Package sweep turns a BenchmarkSweep into its cells (the cartesian
// product of the axes, each a BenchmarkRun spec), the names and order of
// the child runs, and aggregates the children's results back into the
// sweep's status. It is pure: API structs in, values out, no client.
package sweep
