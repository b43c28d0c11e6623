// Package v1alpha1 is mongobench's API, group bench.mongobench.io:
//
//   - BenchmarkRun: one benchmark. A MongoDB topology provisioned on one
//     node (a standalone mongod, or micro-shards behind a mongos), a YCSB
//     workload, and the phases run against it (Load, Run, or a single
//     Grow phase); status holds the merged results, the environment and
//     its fingerprint, the Valid condition and, with spec.compare, the
//     regression gate's verdicts.
//   - BenchmarkSweep: a study. A BenchmarkRun spec as template, axes
//     whose values change it, and repetitions: one child BenchmarkRun per
//     cell and repetition, and their results aggregated per cell in
//     status.
//
// The condition types and reasons tools branch on are in conditions.go,
// the rules every reader of a run applies alike (Usable, Invalid) in
// benchmarkrun_funcs.go. The package imports only k8s.io/api and
// apimachinery, so clients can import it cheaply.
//
// +kubebuilder:object:generate=true
// +groupName=bench.mongobench.io
package v1alpha1
