package v1alpha1

// SecuritySpec decides who may talk to a run's MongoDB processes, and
// whether they must authenticate.
type SecuritySpec struct {
	// NetworkPolicy creates one NetworkPolicy per run that admits traffic
	// to the run's database pods only from the run's own database,
	// bootstrap, validator and loader pods (on the MongoDB ports). Without
	// it every pod of the Kubernetes cluster can reach the benchmark's
	// unauthenticated MongoDB. It takes effect only where the cluster's
	// network plugin enforces NetworkPolicies; elsewhere it is harmless.
	// It is part of the environment's fingerprint.
	// +kubebuilder:default=true
	// +optional
	NetworkPolicy *bool `json:"networkPolicy,omitempty"`

	// Auth turns on MongoDB's access control in the run's MongoDB
	// (default false). The run gets two Secrets of its own, created
	// before its first pod and deleted with its pods: <run>-keyfile,
	// with which every mongod and mongos starts (--keyFile, which turns
	// authorization on, and with which the processes authenticate to one
	// another), and <run>-admin, the passwords of the two users the
	// bootstrap Job creates: mongobench (role root), as which the loaders
	// and the validator connect, and mongobench-monitor (role
	// clusterMonitor), with which telemetry samples the servers. The Jobs
	// get them only as a mounted keyfile and as environment variables
	// from the Secret, never in an argument, a URL, the run's status or
	// an event. It costs a SCRAM-SHA-256 handshake on every new
	// connection (the loaders open theirs before their clock starts),
	// the processes' authentication to one another, and an authorization
	// check on every command. It is part of the environment's
	// fingerprint.
	// +kubebuilder:default=false
	// +optional
	Auth bool `json:"auth,omitempty"`
}
