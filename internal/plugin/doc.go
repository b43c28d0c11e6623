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
//   - report sweep/NAME | run/NAME (report.go): a study's report, rendered
//     by internal/report.
//
// Run is the entry point: it builds the cobra commands (root.go) with
// kubectl's kubeconfig flags (cli-runtime), runs one, and returns the
// process's exit code. ref.go parses resource references (run/NAME,
// sweep/NAME and their aliases); client.go reads the API (runs, sweeps,
// their ConfigMaps) with client-go's REST client.
//
// Exit codes (exit.go) are part of the CLI's contract, documented in every
// verdict command's help and tested: 0 ok, 1 failed, 2 no verdict (usage
// error, timeout, not found, API unreachable), 3 regressed, 4 not valid;
// when several apply, 1 wins over 3 and 3 over 4.
package plugin
