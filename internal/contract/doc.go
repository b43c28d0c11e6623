// Package contract is what the operator's Jobs and the controller agree on,
// defined once: the names of the result ConfigMaps, their label and data
// keys, the flags that tell a Job where to write its result, how those
// flags encode the ConfigMap's owner and labels, and how enum values are
// written on a command line; the server telemetry's flags and key
// (telemetry.go); a Grow phase's command and properties (growth.go); the
// Pause disruption's `loader freeze`, its flags and its report, the
// ephemeral container's termination message (freeze.go).
//
// Both sides import it: internal/topology encodes (it builds the Jobs'
// command lines) and the controller reads the ConfigMaps back by name;
// internal/loader decodes the flags and writes the ConfigMaps. The Job
// contract test (jobs_test.go) runs the arguments of the real Job builders
// through the loader's own parser and checks that the loader would write
// exactly what the controller reads.
//
// The package is pure: no client, no Kubernetes or project imports.
package contract
