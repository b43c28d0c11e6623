package controllers

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Bounds of a run's diagnostics ConfigMap: well below a ConfigMap's 1 MiB,
// however many containers failed.
const (
	// MaxDiagnosticsBytes bounds the ConfigMap's data in total.
	MaxDiagnosticsBytes = 512 << 10
	// DiagnosticsLogLines is how many of a container's last log lines are kept.
	DiagnosticsLogLines = 100
	// maxContainersBytes bounds the summary of the containers' states.
	maxContainersBytes = 128 << 10
	// maxLogRead bounds what is read of one container's log tail.
	maxLogRead = 4 << 20
	// logReadTimeout bounds reading one container's log.
	logReadTimeout = 10 * time.Second
)

// Keys of the diagnostics ConfigMap (besides one "<pod>.<container>.log"
// per container).
const (
	DiagnosticsKeyFailure    = "failure.txt"
	DiagnosticsKeyContainers = "containers.txt"
)

// LogReader reads the tail of a container's log. The manager implements it
// with the pods/log subresource, so it still talks only to the Kubernetes
// API; tests substitute nothing (they run a fake kubelet behind a real API
// server).
type LogReader interface {
	TailLog(ctx context.Context, namespace, pod, container string, lines int64, previous bool) (string, error)
}

// PodLogs is the LogReader of the manager: GET pods/{name}/log.
type PodLogs struct {
	Pods corev1client.PodsGetter
}

// TailLog returns the last lines of a container's log (of its previous
// instance when previous is set).
func (p PodLogs) TailLog(ctx context.Context, namespace, pod, container string, lines int64, previous bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, logReadTimeout)
	defer cancel()
	req := p.Pods.Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container, TailLines: &lines, Previous: previous})
	stream, err := req.Stream(ctx)
	if err != nil {
		return "", fmt.Errorf("read log of %s/%s: %w", pod, container, err)
	}
	defer func() { _ = stream.Close() }()
	b, err := io.ReadAll(io.LimitReader(stream, maxLogRead))
	if err != nil {
		return string(b), fmt.Errorf("read log of %s/%s: %w", pod, container, err)
	}
	return string(b), nil
}

// storeDiagnostics keeps a terminal run's evidence in a ConfigMap owned by
// the run, before any cleanup deletes what it comes from: every finished
// phase's YCSB text report, rebuilt from the phase's merged loader results
// (what a YCSB user reads first), and for a failed run the last log lines
// and the termination state of every container that failed, restarted or
// was still at work. It is idempotent: once the ConfigMap exists, nothing
// is read again.
func (r *BenchmarkRunReconciler) storeDiagnostics(ctx context.Context, s *runState) error {
	run := s.run
	name := topology.DiagnosticsConfigMapName(run)
	if s.configMaps[name] != nil || run.Status.Diagnostics == name {
		run.Status.Diagnostics = name
		return nil
	}
	data, summary := r.phaseYCSBTexts(ctx, s)
	if run.Status.Phase == benchv1.RunFailed {
		failure, what := r.failureDiagnostics(ctx, s, MaxDiagnosticsBytes-dataSize(data))
		maps.Copy(data, failure)
		summary = what + ", " + summary
	}
	cm := topology.DiagnosticsConfigMap(run, data)
	if err := r.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("store diagnostics %s: %w", name, err)
	}
	run.Status.Diagnostics = name
	s.eventf(benchv1.EventDiagnosticsStored, "kept %s in ConfigMap %s", summary, name)
	return nil
}

// DiagnosticsYCSBTextSuffix ends the key of a phase's YCSB text output in
// the diagnostics ConfigMap: "<phase>.ycsb.txt".
const DiagnosticsYCSBTextSuffix = ".ycsb.txt"

// maxYCSBTextsBytes bounds the phases' YCSB texts together (one is about
// 1 KiB per operation type; 16 phases of 8 operations need ~130 KiB).
const maxYCSBTextsBytes = 256 << 10

// phaseYCSBTexts renders the YCSB text output of every phase that
// finished, from the exact merge of its loaders' histograms, with the
// percentiles the phase asked for (hdrhistogram.percentiles). A single
// loader's is byte for byte the one it printed.
func (r *BenchmarkRunReconciler) phaseYCSBTexts(ctx context.Context, s *runState) (map[string]string, string) {
	run := s.run
	data := map[string]string{}
	kept := 0
	for _, res := range run.Status.Results {
		ph := phaseSpec(run, res.Name)
		if ph == nil {
			continue
		}
		key := ph.Name + DiagnosticsYCSBTextSuffix
		text, err := r.phaseYCSBText(s, ph)
		if err != nil {
			// The results are in status already; the report is a convenience.
			logf.FromContext(ctx).Info("cannot rebuild a phase's YCSB report", "run", client.ObjectKeyFromObject(run).String(),
				"phase", ph.Name, "error", err.Error())
			text = fmt.Sprintf("(no report: %v)\n", err)
		} else {
			kept++
		}
		if dataSize(data)+len(key)+len(text) > maxYCSBTextsBytes {
			text = "(report left out: the reports exceed the diagnostics' share for them)\n"
		}
		data[key] = text
	}
	return data, fmt.Sprintf("%d phase reports", kept)
}

// phaseYCSBText is one phase's YCSB text output.
func (r *BenchmarkRunReconciler) phaseYCSBText(s *runState, ph *benchv1.PhaseSpec) (string, error) {
	merged, err := mergedResult(s, ph, topology.PhaseJobName(s.run, ph.Name))
	if err != nil {
		return "", err
	}
	pct := ycsb.DefaultPercentiles
	for _, kv := range topology.Properties(s.run, ph, r.Topology.ClusterDomain) {
		if kv[0] == "hdrhistogram.percentiles" {
			pct = kv[1]
		}
	}
	percentiles, err := ycsb.ParsePercentiles(pct)
	if err != nil {
		return "", fmt.Errorf("hdrhistogram.percentiles: %w", err)
	}
	var b strings.Builder
	if err := ycsb.WriteTextSummary(&b, ycsb.ResultTextSummary(merged, percentiles)); err != nil {
		return "", fmt.Errorf("render the report: %w", err)
	}
	return b.String(), nil
}

// phaseSpec finds a phase of the run by name.
func phaseSpec(run *benchv1.BenchmarkRun, name string) *benchv1.PhaseSpec {
	for i := range run.Spec.Phases {
		if run.Spec.Phases[i].Name == name {
			return &run.Spec.Phases[i]
		}
	}
	return nil
}

// dataSize is what a ConfigMap's data counts against its limit: keys and
// values.
func dataSize(data map[string]string) int {
	n := 0
	for k, v := range data {
		n += len(k) + len(v)
	}
	return n
}

// containerRef is one container whose state and log the diagnostics keep.
type containerRef struct {
	pod    *corev1.Pod
	status corev1.ContainerStatus
	// previous: the log of interest is the previous instance's (the
	// container restarted and runs or waits again).
	previous bool
}

func (c containerRef) key() string { return c.pod.Name + "." + c.status.Name }

// failureDiagnostics collects the diagnostics of a failed run: the
// failure, every interesting container's state (with its full termination
// message, which conditions quote only in part) and log tail, bounded to
// budget bytes.
func (r *BenchmarkRunReconciler) failureDiagnostics(ctx context.Context, s *runState, budget int) (map[string]string, string) {
	run := s.run
	data := map[string]string{}
	failure := "phase: " + string(run.Status.Phase) + "\n"
	for _, c := range run.Status.Conditions {
		if c.Type == benchv1.ConditionFailed && c.Status == metav1.ConditionTrue {
			failure += fmt.Sprintf("reason: %s\nat: %s\nmessage:\n%s\n", c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339), c.Message)
		}
	}
	if run.Status.CurrentPhase != "" {
		failure += "benchmark phase: " + run.Status.CurrentPhase + "\n"
	}
	data[DiagnosticsKeyFailure] = truncateBytes(failure, 64<<10)

	refs := interestingContainers(s)
	var states strings.Builder
	for _, c := range refs {
		states.WriteString(describeContainer(c))
	}
	if len(refs) == 0 {
		states.WriteString("no container failed, restarted or was still running when the run ended\n")
	}
	data[DiagnosticsKeyContainers] = truncateBytes(states.String(), maxContainersBytes)

	// Keys count against a ConfigMap's size as much as values.
	budget -= dataSize(data)
	logs := 0
	for i, c := range refs {
		key := c.key() + ".log"
		share := budget/(len(refs)-i) - len(key) // what earlier logs left, shared fairly
		text := keepTail(r.containerLog(ctx, c), share)
		data[key] = text
		budget -= len(key) + len(text)
		logs++
	}
	return data, fmt.Sprintf("the failure, the state of %d containers, %d log tails", len(refs), logs)
}

// interestingContainers are the containers worth keeping, in a stable
// order: those that failed or restarted (database processes, loaders,
// bootstrap, collMod), those that cannot start, and those of the Job that
// was still at work when the run ended (a timeout's loaders).
func interestingContainers(s *runState) []containerRef {
	names := make([]string, 0, len(s.pods))
	for n := range s.pods {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []containerRef
	for _, n := range names {
		pod := s.pods[n]
		atWork := pod.Labels[benchv1.LabelDatabase] != "true" && pod.Status.Phase != corev1.PodSucceeded
		for _, cs := range allStatuses(pod) {
			failed := cs.RestartCount > 0 || pod.Status.Phase == corev1.PodFailed ||
				(cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0) ||
				(cs.State.Waiting != nil && slices.Contains(stuckReasons, cs.State.Waiting.Reason))
			if !failed && !atWork {
				continue
			}
			prev := cs.RestartCount > 0 && cs.State.Terminated == nil
			out = append(out, containerRef{pod: pod, status: cs, previous: prev})
		}
	}
	return out
}

// stuckReasons are the waiting reasons of a container that cannot start.
var stuckReasons = []string{"CrashLoopBackOff", "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
	"CreateContainerConfigError", "CreateContainerError"}

// describeContainer is a container's entry in containers.txt.
func describeContainer(c containerRef) string {
	var b strings.Builder
	pod, cs := c.pod, c.status
	role := pod.Labels[benchv1.LabelRole]
	if role == "" {
		role = pod.Labels[benchv1.LabelComponent]
	}
	fmt.Fprintf(&b, "== pod %s, container %s (%s)", pod.Name, cs.Name, role)
	if i := completionIndex(pod); i != "" {
		fmt.Fprintf(&b, ", index %s", i)
	}
	fmt.Fprintf(&b, "\nimage: %s\npod phase: %s, node: %s, restarts: %d\n", cs.Image, pod.Status.Phase, pod.Spec.NodeName, cs.RestartCount)
	state := func(what string, st corev1.ContainerState) {
		switch {
		case st.Running != nil:
			fmt.Fprintf(&b, "%s: running since %s\n", what, st.Running.StartedAt.UTC().Format(time.RFC3339))
		case st.Waiting != nil:
			fmt.Fprintf(&b, "%s: waiting: %s: %s\n", what, st.Waiting.Reason, st.Waiting.Message)
		case st.Terminated != nil:
			t := st.Terminated
			fmt.Fprintf(&b, "%s: terminated: %s, started %s, finished %s\n", what, exitCode(t),
				t.StartedAt.UTC().Format(time.RFC3339), t.FinishedAt.UTC().Format(time.RFC3339))
			if m := strings.TrimSpace(t.Message); m != "" {
				fmt.Fprintf(&b, "termination message:\n%s\n", indent(m))
			}
		}
	}
	state("state", cs.State)
	if cs.LastTerminationState.Terminated != nil {
		state("last state", cs.LastTerminationState)
	}
	if c.previous {
		fmt.Fprintf(&b, "log: %s.log holds the previous instance's last %d lines\n", c.key(), DiagnosticsLogLines)
	} else {
		fmt.Fprintf(&b, "log: %s.log holds the last %d lines\n", c.key(), DiagnosticsLogLines)
	}
	b.WriteString("\n")
	return b.String()
}

// containerLog reads a container's log tail, or says why there is none.
func (r *BenchmarkRunReconciler) containerLog(ctx context.Context, c containerRef) string {
	if c.pod.Spec.NodeName == "" {
		return "(no log: the pod was never scheduled)\n"
	}
	if c.status.State.Waiting != nil && c.status.RestartCount == 0 && c.status.LastTerminationState.Terminated == nil {
		return "(no log: the container never started: " + c.status.State.Waiting.Reason + ")\n"
	}
	if r.Logs == nil {
		return "(no log: the manager has no log reader configured)\n"
	}
	text, err := r.Logs.TailLog(ctx, c.pod.Namespace, c.pod.Name, c.status.Name, DiagnosticsLogLines, c.previous)
	if err != nil {
		return text + fmt.Sprintf("(log unavailable: %v)\n", err)
	}
	return text
}

// keepTail bounds a log to limit bytes, keeping its end (where the reason
// a process died is) and saying how much was cut.
func keepTail(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	const room = 96 // the marker line's size, at most
	if limit <= room {
		return ""
	}
	tail := suffixBytes(text, limit-room)
	return fmt.Sprintf("(… %d earlier bytes cut to keep the diagnostics under %d KiB)\n", len(text)-len(tail), MaxDiagnosticsBytes>>10) + tail
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
