package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group version used to register these objects.
	GroupVersion = schema.GroupVersion{Group: "bench.mongobench.io", Version: "v1alpha1"}

	// SchemeBuilder registers the API types; the API package depends only on
	// k8s.io/api and apimachinery so clients can import it cheaply.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types in this group-version to the given scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &BenchmarkRun{}, &BenchmarkRunList{}, &BenchmarkSweep{}, &BenchmarkSweepList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
