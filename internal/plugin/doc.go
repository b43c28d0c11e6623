// Package plugin is the kubectl plugin, `kubectl mongobench` (the binary
// cmd/kubectl-mongobench; docs/plugin.md is its user guide). Its commands:
//
//   - wait run/NAME | sweep/NAME (wait.go, sweepwait.go, progress.go):
//     follow a run or sweep with a watch, print a line per change, and
//     exit with the verdict;
//   - results run/NAME (results.go, view.go, format.go, ycsbreport.go): a
//     run's results per phase and operation as a table, CSV, JSON or
//     YCSB's text report;
//   - stat run/NAME (stat.go): a run's server telemetry, like mongostat;
//   - top run/NAME | sweep/NAME (top.go, top_metrics.go, top_view.go,
//     top_frame.go): a running run or sweep live, from its loaders'
//     /metrics read through the API server's pod proxy: the exposition
//     parsed and rates and p99 from two reads (top_metrics.go), the
//     numbers of a frame (top_view.go), and the frame (top_frame.go);
//   - report sweep/NAME | run/NAME (report.go): a study's report, rendered
//     by internal/report.
//
// Run is the entry point: it builds the cobra commands (root.go) with
// kubectl's kubeconfig flags (cli-runtime), runs one, and returns the
// process's exit code. ref.go parses resource references (run/NAME,
// sweep/NAME and their aliases); client.go reads the API (runs, sweeps,
// their ConfigMaps, loader pods and, through the pod proxy, their
// /metrics) with client-go's REST clients.
//
// Exit codes (exit.go) are part of the CLI's contract, documented in every
// verdict command's help and tested: 0 ok, 1 failed, 2 no verdict (usage
// error, timeout, not found, API unreachable), 3 regressed, 4 not valid;
// when several apply, 1 wins over 3 and 3 over 4.
package plugin
