// Command peer-operator is the controller-runtime peer of kubegen's example
// operator (examples/my-application): the same MyApplication controller,
// with controller-runtime's defaults where the Rust operator keeps
// client-go's (leader election 15 s / 10 s / 2 s, workqueue rate limiter,
// no client-side throttling), the same number of workers and, by default,
// managedFields stripped from the cache as kubegen's informers do. With
// --webhook-bind-address it also serves MyApplication's v1 ↔ v2 conversion
// webhook as a kubebuilder project does (v1 the hub, v2 a spoke), which
// bench/operator-bench/tests/hostile_e2e.rs attacks side by side with
// kubegen's.
// bench/peer-go/build.sh builds it; bench/operator-bench/benches/scale.rs
// runs it against kubegen's operator on identically configured planes.
package main

import (
	"flag"
	"net"
	"os"
	"strconv"

	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

func main() {
	var (
		workers      int
		leaseNS      string
		metricsAddr  string
		probeAddr    string
		leaderElect  bool
		stripManaged bool
		priority     bool
		metricsCerts string
		webhookAddr  string
		webhookCerts string
	)
	flag.IntVar(&workers, "workers", 2, "concurrent reconciles")
	flag.StringVar(&leaseNS, "lease-namespace", "default", "namespace of the leader election Lease")
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "address of /metrics (plain HTTP; 0 disables)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", "0", "address of /healthz and /readyz (0 disables)")
	flag.BoolVar(&leaderElect, "leader-elect", true, "hold a Lease")
	flag.BoolVar(&stripManaged, "strip-managed-fields", true, "drop managedFields from cached objects")
	flag.BoolVar(&priority, "priority-queue", true, "controller-runtime's priority queue (its default) instead of client-go's workqueue")
	flag.StringVar(&metricsCerts, "metrics-cert-dir", "", "serve /metrics over HTTPS with tls.crt and tls.key of this directory, to callers the apiserver authenticates and authorizes (kubebuilder's default)")
	flag.StringVar(&webhookAddr, "webhook-bind-address", "", "host:port of the conversion webhook (HTTPS with tls.crt and tls.key of --webhook-cert-dir; empty serves none)")
	flag.StringVar(&webhookCerts, "webhook-cert-dir", "", "directory of the webhook's tls.crt and tls.key")
	flag.Parse()
	// Warnings and errors only, like the Rust operator under RUST_LOG=warn.
	ctrl.SetLogger(zap.New(zap.UseDevMode(false), zap.Level(zapcore.WarnLevel)))
	log := ctrl.Log.WithName("peer-operator")

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		log.Error(err, "scheme")
		os.Exit(1)
	}
	if err := addKnownTypes(scheme); err != nil {
		log.Error(err, "scheme")
		os.Exit(1)
	}
	cacheOptions := cache.Options{}
	if stripManaged {
		cacheOptions.DefaultTransform = cache.TransformStripManagedFields()
	}
	metrics := metricsserver.Options{BindAddress: metricsAddr}
	if metricsCerts != "" {
		metrics.SecureServing = true
		metrics.CertDir = metricsCerts
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	options := ctrl.Options{
		Scheme:                  scheme,
		Cache:                   cacheOptions,
		Metrics:                 metrics,
		HealthProbeBindAddress:  probeAddr,
		LeaderElection:          leaderElect,
		LeaderElectionID:        "my-application-controller",
		LeaderElectionNamespace: leaseNS,
	}
	if webhookAddr != "" {
		if err := addKnownTypesV2(scheme); err != nil {
			log.Error(err, "scheme")
			os.Exit(1)
		}
		host, port, err := net.SplitHostPort(webhookAddr)
		if err != nil {
			log.Error(err, "--webhook-bind-address")
			os.Exit(1)
		}
		portNumber, err := strconv.Atoi(port)
		if err != nil {
			log.Error(err, "--webhook-bind-address")
			os.Exit(1)
		}
		options.WebhookServer = webhook.NewServer(webhook.Options{Host: host, Port: portNumber, CertDir: webhookCerts})
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), options)
	if err != nil {
		log.Error(err, "manager")
		os.Exit(1)
	}
	r := &reconciler{client: mgr.GetClient(), recorder: mgr.GetEventRecorder("my-application-controller")}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&MyApplication{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers, UsePriorityQueue: &priority}).
		Complete(r)
	if err != nil {
		log.Error(err, "controller")
		os.Exit(1)
	}
	if webhookAddr != "" {
		if err := ctrl.NewWebhookManagedBy(mgr, &MyApplication{}).Complete(); err != nil {
			log.Error(err, "conversion webhook")
			os.Exit(1)
		}
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
