package plugin

import (
	"context"
	"fmt"
	"mime"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/version"
)

// runsResource and sweepsResource are the resources' plural names in API
// paths.
const (
	runsResource   = "benchmarkruns"
	sweepsResource = "benchmarksweeps"
)

// apiClient reads BenchmarkRuns in one namespace through a REST client for
// the API group: a list-watch and a get are all the commands need, so the
// plugin neither discovers the server's API nor builds caches.
type apiClient struct {
	rest      rest.Interface
	core      corev1client.CoreV1Interface
	namespace string
}

// newAPIClient builds the client from the standard kubeconfig flags
// (--kubeconfig, --context, -n, ...).
func newAPIClient(flags *genericclioptions.ConfigFlags) (*apiClient, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, fmt.Errorf("namespace from kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := benchv1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("register the %s API: %w", benchv1.GroupVersion, err)
	}
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create a client for %s: %w", cfg.Host, err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = &benchv1.GroupVersion
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	cfg.UserAgent = "kubectl-mongobench/" + version.Version + " " + rest.DefaultKubernetesUserAgent()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("create a client for %s: %w", cfg.Host, err)
	}
	return &apiClient{rest: rc, core: core, namespace: ns}, nil
}

// getRun reads a run. A missing run is a usage error (exit 2): the user
// named something that is not there, the most common CI mistake.
func (c *apiClient) getRun(ctx context.Context, name string) (*benchv1.BenchmarkRun, error) {
	run := &benchv1.BenchmarkRun{}
	if err := c.get(ctx, runsResource, Ref{Kind: KindRun, Name: name}, run); err != nil {
		return nil, err
	}
	return run, nil
}

// getSweep reads a sweep; a missing one is a usage error, as for runs.
func (c *apiClient) getSweep(ctx context.Context, name string) (*benchv1.BenchmarkSweep, error) {
	sw := &benchv1.BenchmarkSweep{}
	if err := c.get(ctx, sweepsResource, Ref{Kind: KindSweep, Name: name}, sw); err != nil {
		return nil, err
	}
	return sw, nil
}

// get reads the object ref names, of resource, into obj. A missing
// object is a usage error, whatever its kind.
func (c *apiClient) get(ctx context.Context, resource string, ref Ref, obj runtime.Object) error {
	err := c.rest.Get().Namespace(c.namespace).Resource(resource).Name(ref.Name).Do(ctx).Into(obj)
	switch {
	case apierrors.IsNotFound(err):
		return usageErrorf("%s not found in namespace %q", ref, c.namespace)
	case err != nil:
		return fmt.Errorf("get %s in namespace %q: %w", ref, c.namespace, err)
	}
	return nil
}

// sweepRuns lists a sweep's child runs: labelled with its name and
// owned by it (a run of an earlier sweep of the same name, or one
// labelled by hand, is not its child).
func (c *apiClient) sweepRuns(ctx context.Context, sw *benchv1.BenchmarkSweep) ([]benchv1.BenchmarkRun, error) {
	list := &benchv1.BenchmarkRunList{}
	sel := labels.SelectorFromSet(labels.Set{benchv1.LabelSweep: sw.Name}).String()
	err := c.rest.Get().Namespace(c.namespace).Resource(runsResource).
		VersionedParams(&metav1.ListOptions{LabelSelector: sel}, metav1.ParameterCodec).Do(ctx).Into(list)
	if err != nil {
		return nil, fmt.Errorf("list the runs of sweep/%s in namespace %q: %w", sw.Name, c.namespace, err)
	}
	var out []benchv1.BenchmarkRun
	for _, r := range list.Items {
		for _, ref := range r.OwnerReferences {
			if ref.UID == sw.UID {
				out = append(out, r)
				break
			}
		}
	}
	return out, nil
}

// listRuns lists the runs a label selector selects.
func (c *apiClient) listRuns(ctx context.Context, sel labels.Selector) ([]benchv1.BenchmarkRun, error) {
	list := &benchv1.BenchmarkRunList{}
	err := c.rest.Get().Namespace(c.namespace).Resource(runsResource).
		VersionedParams(&metav1.ListOptions{LabelSelector: sel.String()}, metav1.ParameterCodec).Do(ctx).Into(list)
	if err != nil {
		return nil, fmt.Errorf("list the runs selected by %s in namespace %q: %w", sel, c.namespace, err)
	}
	return list.Items, nil
}

// listWatch lists and watches the one named object of a resource (a
// field selector on metadata.name), for an informer that survives watch
// expiry.
func (c *apiClient) listWatch(resource, name string) cache.ListerWatcher {
	return cache.NewListWatchFromClient(c.rest, resource, c.namespace, fields.OneTermEqualSelector("metadata.name", name))
}

// getTelemetry reads a phase's server telemetry ConfigMap (named by
// status.results[].telemetry).
func (c *apiClient) getTelemetry(ctx context.Context, name string) (*telemetry.Payload, error) {
	cm, err := c.core.ConfigMaps(c.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get telemetry ConfigMap %s in namespace %q: %w", name, c.namespace, err)
	}
	rep, err := telemetry.DecodePayload(cm.BinaryData[contract.TelemetryKey])
	if err != nil {
		return nil, fmt.Errorf("telemetry ConfigMap %s: %w", name, err)
	}
	return rep, nil
}

// loaderPods lists the Running loader pods of a run's current benchmark
// phase (of any phase before it has one): a finished loader's pod keeps
// serving its final values until it exits, and a pod that is not Running
// has no endpoint to read.
func (c *apiClient) loaderPods(ctx context.Context, run *benchv1.BenchmarkRun) ([]corev1.Pod, error) {
	set := labels.Set{
		benchv1.LabelRun:       run.Name,
		benchv1.LabelRunUID:    string(run.UID), // not the pods of an earlier run of the same name
		benchv1.LabelComponent: benchv1.ComponentLoader,
	}
	if run.Status.CurrentPhase != "" {
		set[benchv1.LabelPhase] = benchv1.PhaseLabelValue(run.Status.CurrentPhase)
	}
	list, err := c.core.Pods(c.namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(set).String()})
	if err != nil {
		return nil, fmt.Errorf("list the loader pods of run/%s in namespace %q: %w", run.Name, c.namespace, err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// loaderMetrics reads a loader pod's /metrics in the Prometheus text
// format through the API server's pod proxy:
//
//	GET /api/v1/namespaces/NS/pods/http:NAME:PORT/proxy/metrics
//
// the path client-go's PodExpansion.ProxyGet builds
// (kubernetes/typed/core/v1/pod_expansion.go: Resource("pods"),
// SubResource("proxy"), Name(JoinSchemeNamePort(scheme, name, port)),
// Suffix(path)), built here on the same REST client so that an Accept
// header can ask for the text format. PORT is the number of the
// container port named contract.MetricsPortName: the API server does not
// resolve port names for the pod proxy — its pod.ResourceLocation
// (k8s.io/kubernetes pkg/registry/core/pod/strategy.go) joins the port
// part of the name to the pod's IP as it is, and a request for
// http:NAME:metrics fails (tried against kube-apiserver 1.36.3) — so,
// like kubectl port-forward (k8s.io/kubectl pkg/util/pod_port.go,
// LookupContainerPortNumberByName), top resolves the name from the
// pod's spec. The same function refuses pod IPs that are not global unicast
// (loopback, link-local): "address not allowed".
func (c *apiClient) loaderMetrics(ctx context.Context, pod *corev1.Pod) ([]byte, error) {
	port, ok := metricsPort(pod)
	if !ok {
		return nil, fmt.Errorf("pod %s has no container port named %q (its loader serves no /metrics)", pod.Name, contract.MetricsPortName)
	}
	// Do, not DoRaw: Result.Error decodes the API server's own refusals
	// (a Status, written as JSON whatever the Accept header asked for:
	// apiserver's responsewriters.WriteObjectNegotiated) into errors that
	// apierrors.IsForbidden recognises, with their message.
	res := c.core.RESTClient().Get().Namespace(c.namespace).Resource("pods").SubResource("proxy").
		Name(utilnet.JoinSchemeNamePort("http", pod.Name, strconv.Itoa(int(port)))).Suffix(contract.MetricsPath).
		SetHeader("Accept", metricsAccept).Do(ctx)
	if err := res.Error(); err != nil {
		return nil, fmt.Errorf("read %s of pod %s through the API server's pod proxy: %w", contract.MetricsPath, pod.Name, err)
	}
	var ct string
	res.ContentType(&ct)
	if mt, _, _ := mime.ParseMediaType(ct); mt != "text/plain" {
		return nil, fmt.Errorf("read %s of pod %s: got %q, not the Prometheus text format", contract.MetricsPath, pod.Name, ct)
	}
	b, _ := res.Raw() // its error is the one Error decoded
	return b, nil
}

// metricsPort is the number of the pod's container port named
// contract.MetricsPortName.
func metricsPort(pod *corev1.Pod) (int32, bool) {
	for _, ct := range pod.Spec.Containers {
		for _, p := range ct.Ports {
			if p.Name == contract.MetricsPortName {
				return p.ContainerPort, true
			}
		}
	}
	return 0, false
}
