// Package workloads holds the workload property files shipped with the
// loader: YCSB 0.17.0's standard workloads A-F, verbatim, and the
// micro-sharding study's scenarios S1-S5. They are embedded so the loader
// image needs no files besides its binary; ycsb.ResolveWorkload looks them up
// by name.
package workloads

import "embed"

// FS holds the workload files, each at the top level under its name
// (workloada ... workloadf, workloadS1 ... workloadS5).
//
//go:embed workloada workloadb workloadc workloadd workloade workloadf
//go:embed workloadS1 workloadS2 workloadS3 workloadS4 workloadS5
var FS embed.FS
