// Command loader runs YCSB workloads against MongoDB (`loader load|run`,
// bin/ycsb's interface), the data-growth workload of a Grow phase
// (`loader grow`) and the in-cluster administration of the benchmark's
// topology (`loader bootstrap|collmod`); `loader version` prints its
// version. It is the binary of the loader image, which every Job of a run
// runs (docs/loader.md is the user guide). Everything lives in
// internal/loader; main.go wires the process to it: arguments, streams,
// environment and signals.
package main
