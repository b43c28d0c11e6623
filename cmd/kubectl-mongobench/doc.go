// Command kubectl-mongobench is the mongobench kubectl plugin: put it on
// PATH and run "kubectl mongobench wait|results|stat|report". The commands
// live in internal/plugin (docs/plugin.md is the user guide); main.go
// wires the process to them: arguments, streams, signals and the exit
// code.
package main
