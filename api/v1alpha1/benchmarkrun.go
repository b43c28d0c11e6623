package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The REASON column (-o wide) is the Failed condition's reason: the
// controller sets that condition when the run starts and keeps it to the
// end, so its reason explains every phase: Running while the run goes,
// Succeeded, or why it failed (PhaseFailed, Timeout, ...). A JSONPath
// cannot pick "the first condition that is True", so one condition it is.

// BenchmarkRun runs a YCSB benchmark against a MongoDB topology that the
// controller provisions on one node, and records the results in status.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=br;bench,categories=mongobench
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.topology.mode`
// +kubebuilder:printcolumn:name="Shards",type=integer,JSONPath=`.spec.topology.shards`
// +kubebuilder:printcolumn:name="Workload",type=string,JSONPath=`.spec.workload.preset`
// +kubebuilder:printcolumn:name="Threads",type=integer,JSONPath=`.spec.phases[-1:].threads`
// +kubebuilder:printcolumn:name="Ops/s",type=number,JSONPath=`.status.summary.throughput`
// +kubebuilder:printcolumn:name="P99-Micros",type=integer,JSONPath=`.status.summary.p99Micros`
// +kubebuilder:printcolumn:name="Regressed",type=string,JSONPath=`.status.conditions[?(@.type=="Regressed")].status`
// +kubebuilder:printcolumn:name="Valid",type=string,JSONPath=`.status.conditions[?(@.type=="Valid")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Failed")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 40",message="metadata.name must be at most 40 characters: it prefixes the names of the run's Pods, Services and Jobs"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter and ending with a letter or digit, no '.'): it prefixes the names of the run's Services (<run>-mongo, <run>-db), which must be one"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.phase) || oldSelf.status.phase == 'Pending' || self.spec == oldSelf.spec",messageExpression="'spec cannot be changed once the run has started (phase ' + oldSelf.status.phase + '): a benchmark definition must not drift mid-run; create a new BenchmarkRun instead'"
type BenchmarkRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   BenchmarkRunSpec   `json:"spec"`
	Status BenchmarkRunStatus `json:"status,omitempty"`
}

// BenchmarkRunList contains a list of BenchmarkRun.
//
// +kubebuilder:object:root=true
type BenchmarkRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkRun `json:"items"`
}
