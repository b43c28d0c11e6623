package contract

// How `loader bootstrap --mode External` says that the run's database
// already holds data (ReasonTargetNotEmpty): its own exit code, and a
// termination message that begins with TargetNotEmptyPrefix, so the
// controller can tell the refusal from any other failure of the bootstrap
// Job by either.
const (
	// ExitTargetNotEmpty is the bootstrap's exit code when the run's
	// database holds a collection other than this run's owner mark and
	// FlagAllowExistingData was not given. Nothing was written.
	ExitTargetNotEmpty = 3
	// TargetNotEmptyPrefix begins the termination message of that exit;
	// the rest names the database and up to a few of its collections.
	TargetNotEmptyPrefix = "TargetNotEmpty: "
)

// CommandDropDatabase is the loader command of a run of mode External's
// cleanup: `loader dropdatabase --namespace <db>.<coll> --owner
// <namespace>/<name>/<uid>`, connecting with EnvURI.
const CommandDropDatabase = "dropdatabase"

// `loader dropdatabase` (the cleanup of a run of mode External) exits 0
// whether it dropped the database or kept it; its one line on stdout
// begins with DropDatabaseDroppedPrefix or DropDatabaseKeptPrefix, the
// latter followed by the reason (no owner mark, another run's mark, no
// such database).
const (
	DropDatabaseDroppedPrefix = "dropped database "
	DropDatabaseKeptPrefix    = "kept database "
)

// FlagTelemetryExternal (bool) makes loader 0 of load, run and grow
// sample the processes of an external cluster, which the controller does
// not know: discovered through EnvMonitorURI (else EnvURI) by hello,
// listShards and getShardMap, each then sampled alone. It replaces
// FlagTelemetryProcess, which must not be given with it.
const FlagTelemetryExternal = "telemetry-external"
