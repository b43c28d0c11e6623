package topology

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// HeadlessService gives each MongoDB pod a stable DNS name. Not-ready
// addresses are published because replica set members must resolve each
// other (and themselves) before they are initiated and ready.
func HeadlessService(run *benchv1.BenchmarkRun) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: objectMeta(run, HeadlessServiceName(run), RunLabels(run, benchv1.ComponentNetwork)),
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			PublishNotReadyAddresses: true,
			Selector:                 DatabaseSelector(run),
			Ports: []corev1.ServicePort{
				{Name: "mongod", Port: PortMongod, TargetPort: intstr.FromInt32(PortMongod), Protocol: corev1.ProtocolTCP},
				{Name: "shard", Port: PortShard, TargetPort: intstr.FromInt32(PortShard), Protocol: corev1.ProtocolTCP},
				{Name: "configsvr", Port: PortConfigServer, TargetPort: intstr.FromInt32(PortConfigServer), Protocol: corev1.ProtocolTCP},
			},
		},
	}
}

// EntryService is what loaders connect to: mongos, or the standalone mongod.
func EntryService(run *benchv1.BenchmarkRun) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: objectMeta(run, EntryServiceName(run), RunLabels(run, benchv1.ComponentNetwork)),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: EntrySelector(run),
			Ports:    []corev1.ServicePort{{Name: "mongodb", Port: PortMongod, TargetPort: intstr.FromInt32(PortMongod), Protocol: corev1.ProtocolTCP}},
		},
	}
}
