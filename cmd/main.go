package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/topology"
	"github.com/mongobench/mongobench/internal/version"
)

func main() {
	var (
		metricsAddr, probeAddr, loaderImage, pullPolicy, clusterDomain, watchNamespace string
		leaderElect, secureMetrics                                                     bool
		concurrency                                                                    int
		bootstrapTimeout                                                               time.Duration
		limits                                                                         = controllers.DefaultLimits
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8443", "Address of the metrics endpoint (0 disables it).")
	flag.BoolVar(&secureMetrics, "metrics-secure", true, "Serve metrics over HTTPS with authentication and authorization.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address of the health and readiness probes.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Enable leader election (run several replicas safely).")
	flag.StringVar(&loaderImage, "loader-image", version.LoaderImage(), "Image of the Jobs that bootstrap MongoDB and run the loaders.")
	flag.StringVar(&pullPolicy, "loader-image-pull-policy", string(corev1.PullIfNotPresent), "Pull policy of the loader image.")
	flag.StringVar(&clusterDomain, "cluster-domain", topology.DefaultClusterDomain, "The cluster's DNS domain.")
	flag.StringVar(&watchNamespace, "watch-namespace", "", "Only reconcile runs in this namespace (empty: all namespaces).")
	flag.IntVar(&concurrency, "max-concurrent-reconciles", 4, "How many runs are reconciled at once.")
	flag.DurationVar(&bootstrapTimeout, "bootstrap-timeout", 8*time.Minute, "How long the bootstrap Job may take.")
	flag.DurationVar(&limits.Unschedulable, "unschedulable-timeout", limits.Unschedulable, "Fail a run whose pod stays unschedulable this long.")
	flag.DurationVar(&limits.ImagePull, "image-pull-timeout", limits.ImagePull, "Fail a run whose image cannot be pulled for this long.")
	flag.DurationVar(&limits.ResultGrace, "result-grace-period", limits.ResultGrace, "How long a completed Job's result may take to appear.")
	flag.DurationVar(&limits.StartLead, "start-lead", limits.StartLead,
		"How far ahead of the moment every loader of a phase is ready their common start is set.")
	flag.DurationVar(&limits.StartBarrier, "start-barrier-timeout", limits.StartBarrier,
		"Fail a phase whose loaders wait this long at its start barrier for the others.")
	flag.DurationVar(&limits.SecretWait, "secret-wait", limits.SecretWait,
		"How long an External run waits for a Secret it names to exist before it fails with SecretNotFound.")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(benchv1.AddToScheme(scheme))

	metricsOpts := metricsserver.Options{
		BindAddress:   metricsAddr,
		SecureServing: secureMetrics,
		// Disable HTTP/2 (CVE-2023-44487, CVE-2023-39325).
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	}
	if secureMetrics {
		metricsOpts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsOpts,
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         leaderElect,
		LeaderElectionID:       "mongobench.bench.mongobench.io",
		Cache:                  controllers.CacheOptions(watchNamespace),
	})
	if err != nil {
		log.Error(err, "unable to create the manager")
		os.Exit(1)
	}
	// Container logs for failed runs' diagnostics come through the pods/log
	// subresource: still only the Kubernetes API.
	pods, err := corev1client.NewForConfig(mgr.GetConfig())
	if err != nil {
		log.Error(err, "unable to create the pods/log client")
		os.Exit(1)
	}
	// The API server's version goes into every run's environment; a
	// failure to ask is not fatal (the field stays empty).
	kubeVersion := ""
	if dc, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig()); err == nil {
		if v, err := dc.ServerVersion(); err == nil {
			kubeVersion = v.GitVersion
		} else {
			log.Info("cannot read the Kubernetes version; runs will not record it", "error", err.Error())
		}
	}
	rec := &controllers.BenchmarkRunReconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Logs:      controllers.PodLogs{Pods: pods},
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder("mongobench"),
		Clock:     clock.RealClock{},
		Topology: topology.Config{
			LoaderImage:           loaderImage,
			LoaderImagePullPolicy: corev1.PullPolicy(pullPolicy),
			ClusterDomain:         clusterDomain,
			BootstrapTimeout:      bootstrapTimeout,
		},
		Limits:                  limits,
		MaxConcurrentReconciles: concurrency,
		Environment: controllers.Environment{KubernetesVersion: kubeVersion, ManagerVersion: version.Version,
			DriverVersion: version.DriverVersion()},
	}
	if err := rec.SetupWithManager(mgr); err != nil {
		log.Error(err, "unable to set up the controller")
		os.Exit(1)
	}
	sweeps := &controllers.BenchmarkSweepReconciler{
		Client:                  mgr.GetClient(),
		APIReader:               mgr.GetAPIReader(),
		Scheme:                  mgr.GetScheme(),
		Recorder:                mgr.GetEventRecorder("mongobench"),
		Clock:                   clock.RealClock{},
		MaxConcurrentReconciles: concurrency,
	}
	if err := sweeps.SetupWithManager(mgr); err != nil {
		log.Error(err, "unable to set up the sweep controller")
		os.Exit(1)
	}
	metrics.Registry.MustRegister(controllers.NewMetricsCollector(mgr.GetCache(), clock.RealClock{}, mgr.Elected()))
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "unable to set up the health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		log.Error(err, "unable to set up the ready check")
		os.Exit(1)
	}
	log.Info("starting manager", "version", version.Version, "loaderImage", loaderImage)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
