//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// scrapeLoader reads a loader pod's /metrics through the API server's pod
// proxy (GET /api/v1/namespaces/NS/pods/NAME:9400/proxy/metrics), the way
// `kubectl mongobench top` does, and parses the text exposition. The port
// is the number: the pod proxy joins what follows the name to the pod's
// IP as it is (pod.ResourceLocation, pkg/registry/core/pod/strategy.go),
// so a port name does not resolve.
func (s *suite) scrapeLoader(cs kubernetes.Interface, pod string) (map[string]*dto.MetricFamily, []byte, error) {
	body, err := cs.CoreV1().Pods(s.ns).ProxyGet("http", pod, strconv.Itoa(contract.MetricsPort), contract.MetricsPath, nil).
		DoRaw(context.Background())
	if err != nil {
		return nil, body, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	return mfs, body, err
}

// sum adds up a family's counter and gauge values.
func sum(mf *dto.MetricFamily) float64 {
	var v float64
	if mf == nil {
		return 0
	}
	for _, m := range mf.Metric {
		v += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return v
}

// TestLiveMetrics: while a run phase runs on kind against a real mongod,
// every loader's /metrics answers through the pod proxy; its operation
// counter grows between two scrapes, every sample carries the loader's
// namespace, run, phase and index, loader 0 exports the mongod's
// connections (at least the phase's threads) under the pod's name, and
// the exposition is promlint-clean. `kubectl mongobench top --once` shows
// the phase live, and the run still completes with error-free results.
func TestLiveMetrics(t *testing.T) {
	s := setup(t)
	run := smallRun("live", benchv1.TopologyStandalone, 0)
	// A run phase bounded by time, long enough to scrape twice.
	run.Spec.Workload.OperationCount = ptr.To[int64](0)
	run.Spec.Phases[1].MaxExecutionTime = &metav1.Duration{Duration: 90 * time.Second}
	run.Spec.Phases[1].Target = ptr.To[int64](500)
	s.create(run)

	cfg, err := ctrl.GetConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	phase := map[string]string{benchv1.LabelRun: run.Name, benchv1.LabelComponent: benchv1.ComponentLoader, benchv1.LabelPhase: "a"}
	var loaders []corev1.Pod
	s.wait("the run phase's loaders to run", 10*time.Minute, func() bool {
		loaders = nil
		for _, p := range s.pods(client.MatchingLabels(phase)) {
			if p.Status.Phase == corev1.PodRunning {
				loaders = append(loaders, p)
			}
		}
		return len(loaders) == int(run.Spec.Loaders)
	})

	for _, pod := range loaders {
		index := pod.Labels["batch.kubernetes.io/job-completion-index"]
		var first, second map[string]*dto.MetricFamily
		var body []byte
		s.wait(pod.Name+" to measure", 2*time.Minute, func() bool {
			first, body, err = s.scrapeLoader(cs, pod.Name)
			return err == nil && sum(first[contract.MetricLoaderMeasuring]) == 1 && sum(first[contract.MetricLoaderOperations]) > 0
		})
		s.wait(pod.Name+"'s counter to grow", time.Minute, func() bool {
			second, body, err = s.scrapeLoader(cs, pod.Name)
			return err == nil && sum(second[contract.MetricLoaderOperations]) > sum(first[contract.MetricLoaderOperations])
		})
		problems, err := promlint.New(bytes.NewReader(body)).Lint()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: promlint: %s: %s", pod.Name, p.Metric, p.Text)
		}
		want := map[string]string{contract.MetricLabelNamespace: s.ns, contract.MetricLabelRun: run.Name,
			contract.MetricLabelPhase: "a", contract.MetricLabelLoader: index}
		for name, mf := range second {
			for _, m := range mf.Metric {
				got := map[string]string{}
				for _, l := range m.Label {
					got[l.GetName()] = l.GetValue()
				}
				for k, v := range want {
					if got[k] != v {
						t.Errorf("%s: %s%v: %s=%q, want %q", pod.Name, name, got, k, got[k], v)
					}
				}
			}
		}
		if v := sum(second[contract.MetricLoaderThreads]); v != float64(run.Spec.Phases[1].Threads) {
			t.Errorf("%s: %s = %v, want %d", pod.Name, contract.MetricLoaderThreads, v, run.Spec.Phases[1].Threads)
		}
		conns := second[contract.MetricServerConnections]
		if index != "0" {
			if conns != nil {
				t.Errorf("%s: loader %s exports server figures; only loader 0 samples", pod.Name, index)
			}
			continue
		}
		threads := float64(int(run.Spec.Loaders) * int(run.Spec.Phases[1].Threads))
		if conns == nil || len(conns.Metric) != 1 || conns.Metric[0].GetGauge().GetValue() < threads {
			t.Errorf("%s: %s %v, want one process with at least %v", pod.Name, contract.MetricServerConnections, conns, threads)
		} else {
			for _, l := range conns.Metric[0].Label {
				if l.GetName() == contract.MetricLabelProcess && !strings.HasPrefix(l.GetValue(), run.Name+"-") {
					t.Errorf("%s: process label %q is not the mongod's pod", pod.Name, l.GetValue())
				}
			}
		}
	}

	code, out := s.plugin("top", "run/"+run.Name, "--once")
	if code != 0 || !strings.Contains(out, "READ") || !strings.Contains(out, "UPDATE") {
		t.Errorf("kubectl mongobench top --once: exit %d\n%s", code, out)
	}

	done := s.waitEnd(run.Name)
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run %s: %s", done.Status.Phase, failure(done))
	}
	s.checkResults(done)
}
