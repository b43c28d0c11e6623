package plugin

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/version"
)

// runsResource is the BenchmarkRun resource's plural name in API paths.
const runsResource = "benchmarkruns"

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
	err := c.rest.Get().Namespace(c.namespace).Resource(runsResource).Name(name).Do(ctx).Into(run)
	switch {
	case apierrors.IsNotFound(err):
		return nil, usageErrorf("run/%s not found in namespace %q", name, c.namespace)
	case err != nil:
		return nil, fmt.Errorf("get run/%s in namespace %q: %w", name, c.namespace, err)
	}
	return run, nil
}

// runListWatch lists and watches the one named run (a field selector on
// metadata.name), for an informer that survives watch expiry.
func (c *apiClient) runListWatch(name string) cache.ListerWatcher {
	return cache.NewListWatchFromClient(c.rest, runsResource, c.namespace, fields.OneTermEqualSelector("metadata.name", name))
}

// getTelemetry reads a phase's server telemetry ConfigMap (named by
// status.results[].telemetry).
func (c *apiClient) getTelemetry(ctx context.Context, name string) (*telemetry.Report, error) {
	cm, err := c.core.ConfigMaps(c.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get telemetry ConfigMap %s in namespace %q: %w", name, c.namespace, err)
	}
	rep, err := telemetry.DecodeReport(cm.BinaryData[contract.TelemetryKey])
	if err != nil {
		return nil, fmt.Errorf("telemetry ConfigMap %s: %w", name, err)
	}
	return rep, nil
}
