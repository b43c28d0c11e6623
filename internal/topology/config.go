package topology

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// Config holds the manager-wide settings builders need.
type Config struct {
	// LoaderImage runs every Job (bootstrap, loaders, validator).
	LoaderImage string
	// LoaderImagePullPolicy of the Jobs' containers.
	LoaderImagePullPolicy corev1.PullPolicy
	// ClusterDomain is the cluster's DNS domain (cluster.local).
	ClusterDomain string
	// BootstrapTimeout bounds the bootstrap Job's work.
	BootstrapTimeout time.Duration
}

// DefaultClusterDomain is Kubernetes' default DNS domain.
const DefaultClusterDomain = "cluster.local"

// MongoUID is the uid/gid of the mongodb user in the official mongo image.
const MongoUID = 999

// ownerRefs makes the run the controller owner, so deleting the run
// garbage-collects everything and the controller is told about changes.
func ownerRefs(run *benchv1.BenchmarkRun) []metav1.OwnerReference {
	return []metav1.OwnerReference{*metav1.NewControllerRef(run, benchv1.GroupVersion.WithKind("BenchmarkRun"))}
}

func objectMeta(run *benchv1.BenchmarkRun, name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: run.Namespace, Labels: labels, OwnerReferences: ownerRefs(run)}
}

// restrictedPodSecurity satisfies the "restricted" Pod Security Standard.
func restrictedPodSecurity(uid int64) *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		RunAsUser:      ptr.To(uid),
		RunAsGroup:     ptr.To(uid),
		FSGroup:        ptr.To(uid),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

func restrictedContainerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		RunAsNonRoot:             ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}
