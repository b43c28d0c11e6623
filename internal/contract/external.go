package contract

// The contract of mode External (issue 25): a run against a MongoDB that
// mongobench did not deploy. The controller provisions nothing; every Job
// reads the connection string from the user's Secret through the
// environment (secretKeyRef), never from a flag or a property on the
// command line, which land in the pod spec, logs and the run's status. TLS
// files are mounted from the user's Secrets.
const (
	// EnvURI is the connection string of the cluster under test
	// (spec.topology.external.uriSecretRef): every Job connects with it,
	// the loaders as if it were mongodb.url.
	EnvURI = "MONGOBENCH_URI"
	// EnvMonitorURI is the connection string telemetry samples with
	// (spec.topology.external.monitorURISecretRef): a user with
	// clusterMonitor. Without it telemetry uses EnvURI.
	EnvMonitorURI = "MONGOBENCH_MONITOR_URI"

	// FlagTLSCAFile is the path of a PEM file of the CA certificates that
	// the cluster's server certificates chain to (tls.caSecretRef).
	FlagTLSCAFile = "tls-ca-file"
	// FlagTLSCertFile and FlagTLSKeyFile are the paths of the client
	// certificate and its key (tls.clientCertSecretRef, a
	// kubernetes.io/tls Secret: tls.crt and tls.key), for clusters that
	// require a client certificate (x509 or mutual TLS).
	FlagTLSCertFile = "tls-cert-file"
	FlagTLSKeyFile  = "tls-key-file"

	// FlagAllowExistingData lets `loader bootstrap --mode external` use a
	// database that already holds collections (spec.topology.external.
	// allowExistingData); without it such a database fails the bootstrap
	// with ReasonTargetNotEmpty's exit and message.
	FlagAllowExistingData = "allow-existing-data"
	// FlagShardCollection (bool, default true) makes `loader bootstrap
	// --mode external` shard the collection when the target is sharded.
	FlagShardCollection = "shard-collection"
	// FlagOwner is the run's identity (namespace/name/uid) that
	// `loader bootstrap --mode external` writes into OwnerCollection when
	// it finds the database empty, and that `loader dropdatabase` requires
	// to find there before it drops anything.
	FlagOwner = "owner"
)

// OwnerCollection is the collection, in the run's database, that marks the
// database as created by a run: one document {_id: "owner", run:
// "<namespace>/<name>", uid: "<uid>"}. Cleanup drops a database only when
// it holds this run's mark, so a database that existed before the run
// (allowExistingData) is never dropped, and a rerun of the bootstrap
// recognises its own database as not "existing data".
const OwnerCollection = "mongobench.owner"

// ModeExternal is --mode's value for a cluster mongobench did not deploy
// (mongoadmin's and the API's spelling, FlagValue-compared like the others).
const ModeExternal = "External"

// The run's database and the driver options of spec.driver, for Jobs that
// connect with EnvURI: the user's connection string keeps its hosts,
// credentials and TLS options, and the loader adds these to it.
const (
	// PropExternalDatabase (-p, load/run/grow) is the run's database
	// (spec.topology.external.database), used instead of the connection
	// string's path, which names the user's authentication database if
	// anything.
	PropExternalDatabase = "mongobench.database"
	// PropExternalURIOptions (-p, load/run/grow) is the URI options the
	// controller would have put on mongodb.url (w, journal,
	// readPreference, readConcernLevel, maxPoolSize, retryWrites, as
	// topology.MongoURL writes them: key=value joined by &), each added
	// to EnvURI's unless the URI sets it already.
	PropExternalURIOptions = "mongobench.urioptions"
)
