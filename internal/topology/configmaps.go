package topology

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// DiagnosticsConfigMap holds a finished run's evidence; owned by the run,
// it survives the run's cleanup and goes with the run.
func DiagnosticsConfigMap(run *benchv1.BenchmarkRun, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: objectMeta(run, DiagnosticsConfigMapName(run), RunLabels(run, benchv1.ComponentDiagnostics)),
		Data:       data,
	}
}

// TelemetryConfigMap keeps a phase's full server telemetry, the encoded
// report as loader 0 wrote it (key contract.TelemetryKey); owned by the
// run, it survives the run's cleanup and goes with the run.
func TelemetryConfigMap(run *benchv1.BenchmarkRun, phase string, report []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: objectMeta(run, TelemetryConfigMapName(run, phase), PhaseLabels(run, benchv1.ComponentTelemetry, phase)),
		BinaryData: map[string][]byte{contract.TelemetryKey: report},
	}
}

// HistogramsConfigMap keeps a phase's merged result (results.Encode of the
// loaders' Merge), under the key of a loader's result
// (contract.ConfigMapKey) since it has the same form; owned by the run, it
// survives the run's cleanup and goes with the run.
func HistogramsConfigMap(run *benchv1.BenchmarkRun, phase string, merged []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: objectMeta(run, HistogramsConfigMapName(run, phase), PhaseLabels(run, benchv1.ComponentHistograms, phase)),
		BinaryData: map[string][]byte{contract.ConfigMapKey: merged},
	}
}

// StartConfigMap opens the start barrier of a phase's Job: every loader
// starts its measured window at the instant at (contract.StartAtKey).
// Immutable: once loaders may have read it, it never changes.
func StartConfigMap(run *benchv1.BenchmarkRun, jobName string, at time.Time) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: objectMeta(run, contract.StartConfigMapName(jobName), RunLabels(run, benchv1.ComponentLoader)),
		Immutable:  ptr.To(true),
		Data:       map[string]string{contract.StartAtKey: at.UTC().Format(time.RFC3339Nano)},
	}
}
