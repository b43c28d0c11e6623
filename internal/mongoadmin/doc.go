// Package mongoadmin makes a MongoDB topology ready for a benchmark: it
// initiates the replica sets of a sharded cluster, adds the shards, stops the
// balancer, enables sharding on the benchmark database (MongoDB 5.0 requires
// it), shards the benchmark collection and, for a ranged shard key,
// splits it into one range per shard and moves each range to its shard
// (Bootstrap, presplit.go), and installs a schema validator on the
// collection (ApplyValidator).
//
// It runs inside the cluster, in a Job of the loader image (`loader bootstrap`,
// `loader collmod`): the operator's manager never talks to MongoDB. The Job
// may run again after a manager restart or a retry, against a topology that
// is partly or fully bootstrapped, so every step first looks at what is there
// and only changes what is missing. Transient errors (a member not primary
// yet, a mongos that cannot reach its config server yet, a refused
// connection, an addShard answered 96 OperationFailed "host did not return
// a set name" by a shard still initiating) are retried with a small backoff
// until an overall deadline, and so are a split or a migration that
// conflicts with another still running (117 ConflictingOperationInProgress,
// 46 LockBusy); any other 96 fails at once (errors.go and sharding.go list
// the codes and say why); every command
// has its own timeout; anything else fails at once with the command, the
// server's code, code name and message. A split or a migration whose
// outcome is unknown (an error, a lost reply) is judged by reading
// config.chunks again.
//
// With access control (a run with security.auth), Bootstrap connects with
// DialDriverWithCredential as the cluster's own user and, once the
// collection exists, creates Topology.Users that do not exist yet
// (usersInfo first, then createUser; users.go): the admin user (root) on
// the entry point, the telemetry user (clusterMonitor) there and on each
// shard's primary. ApplyValidator takes the admin user the same way. An
// access error (13 Unauthorized, 18 AuthenticationFailed) is never
// retried, and no password reaches a log line or an error.
//
// Every command goes through the Commander interface, one per server, so the
// tests can substitute a recording fake; DialDriver is the real one
// (go.mongodb.org/mongo-driver/v2). The sequence follows
// shared/reference/mongodb-topology.md.
package mongoadmin
