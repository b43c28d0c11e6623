package topology

import (
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// DiagnosticsConfigMap holds a finished run's evidence; owned by the run,
// it survives the run's cleanup and goes with the run.
func DiagnosticsConfigMap(run *benchv1.BenchmarkRun, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: objectMeta(run, DiagnosticsConfigMapName(run), RunLabels(run, ComponentDiagnostics)),
		Data:       data,
	}
}
