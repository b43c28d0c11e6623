package v1alpha1

// SecuritySpec decides who may talk to a run's MongoDB processes.
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
}
