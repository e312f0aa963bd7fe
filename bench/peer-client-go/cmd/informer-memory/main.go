// Command informer-memory is the client-go side of kubegen-runtime's
// informer_memory benchmark. It syncs a shared informer for the ConfigMaps of
// one namespace, as a controller built on client-go's informer factory does,
// and prints one JSON line: the heap the synced cache holds per object, how
// long the sync took and how long one lister Get takes once synced, medians
// over -runs measurements after one warm-up.
//
// Heap is read from runtime.MemStats after runtime.GC twice and
// debug.FreeOSMemory, before the informer starts and once it has synced.
// HeapAlloc (bytes of live objects) is the primary figure; HeapInuse (bytes
// of in-use spans, so with fragmentation) is reported alongside.
//
// The informer keeps client-go's defaults: its generated clients ask for
// protobuf for built-in types such as ConfigMaps (-json=true makes them ask
// for JSON, as kube-rs and kubegen do, to compare the codecs' share); in
// v0.36 the WatchListClient
// feature gate is on, so the initial list is a watch with
// sendInitialEvents=true unless the server refuses it or
// KUBE_FEATURE_WatchListClient=false is set. The requests the informer makes
// are recorded to report which path it took.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// sample is one measured sync.
type sample struct {
	Objects   int     `json:"objects"`
	SyncMs    float64 `json:"sync_ms"`
	HeapAlloc int64   `json:"heap_alloc_bytes"`
	HeapInuse int64   `json:"heap_inuse_bytes"`
	ListPath  string  `json:"list_path"`
	GetNs     float64 `json:"get_ns"`
	GetHotNs  float64 `json:"get_hot_ns"`
}

// report is the line printed on stdout.
type report struct {
	Objects            int      `json:"objects"`
	SyncMs             float64  `json:"sync_ms"`
	HeapAllocPerObject float64  `json:"heap_alloc_bytes_per_object"`
	HeapInusePerObject float64  `json:"heap_inuse_bytes_per_object"`
	GetNs              float64  `json:"get_ns"`
	GetHotNs           float64  `json:"get_hot_ns"`
	Hot                int      `json:"hot"`
	Strip              bool     `json:"strip"`
	JSON               bool     `json:"json"`
	Runs               int      `json:"runs"`
	ListPath           string   `json:"list_path"`
	WatchListGate      bool     `json:"watch_list_client_gate"`
	WatchListEnv       string   `json:"watch_list_client_env"`
	Samples            []sample `json:"samples"`
}

// recorder remembers how the informer read the collection: watch requests
// asking for initial events (a streaming list) and plain list requests
// (pages of a paginated list).
type recorder struct {
	mu         sync.Mutex
	watchLists int
	lists      int
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watchLists, r.lists = 0, 0
}

func (r *recorder) note(req *http.Request) {
	query := req.URL.Query()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case query.Get("watch") == "true" && query.Get("sendInitialEvents") == "true":
		r.watchLists++
	case query.Get("watch") != "true":
		r.lists++
	}
}

// path names the way the last sync read the collection.
func (r *recorder) path() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.watchLists > 0 && r.lists == 0:
		return "streaming (WatchList)"
	case r.watchLists > 0:
		return fmt.Sprintf("WatchList refused, fell back to a paginated list (%d request(s))", r.lists)
	default:
		return fmt.Sprintf("paginated list (%d request(s))", r.lists)
	}
}

type recordingTransport struct {
	next http.RoundTripper
	rec  *recorder
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.rec.note(req)
	return t.next.RoundTrip(req)
}

// settle collects garbage until what remains is live, and returns the heap
// figures.
func settle() (alloc, inuse int64) {
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return int64(stats.HeapAlloc), int64(stats.HeapInuse)
}

// stripManagedFields is the transform controllers install to drop
// metadata.managedFields before objects enter the cache.
func stripManagedFields(obj any) (any, error) {
	if object, err := meta.Accessor(obj); err == nil {
		object.SetManagedFields(nil)
	}
	return obj, nil
}

// measure syncs one informer and returns its figures; the informer is shut
// down before it returns.
func measure(client kubernetes.Interface, rec *recorder, namespace string, strip bool, hot int, timeout time.Duration) (sample, error) {
	allocBefore, inuseBefore := settle()
	rec.reset()
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	defer factory.Shutdown()
	defer cancel()
	informer := factory.Core().V1().ConfigMaps().Informer()
	lister := factory.Core().V1().ConfigMaps().Lister()
	if strip {
		if err := informer.SetTransform(stripManagedFields); err != nil {
			return sample{}, err
		}
	}
	begun := time.Now()
	factory.Start(ctx.Done())
	select {
	case <-informer.HasSyncedChecker().Done():
	case <-time.After(timeout):
		return sample{}, fmt.Errorf("informer not synced after %v", timeout)
	}
	elapsed := time.Since(begun)
	objects := len(informer.GetStore().ListKeys())
	allocAfter, inuseAfter := settle()
	keys := informer.GetStore().ListKeys()
	getNs, err := timeGets(keys, lister)
	if err != nil {
		return sample{}, err
	}
	// The hot set: the first keys in order, the set the Rust bench reads.
	slices.Sort(keys)
	getHotNs, err := timeGets(keys[:min(hot, len(keys))], lister)
	if err != nil {
		return sample{}, err
	}
	runtime.KeepAlive(informer)
	return sample{
		Objects:   objects,
		SyncMs:    float64(elapsed.Microseconds()) / 1000,
		HeapAlloc: allocAfter - allocBefore,
		HeapInuse: inuseAfter - inuseBefore,
		ListPath:  rec.path(),
		GetNs:     getNs,
		GetHotNs:  getHotNs,
	}, nil
}

// timeGets reads the object of each of keys once by namespace and name
// through the lister, as a reconciler does, in five passes, and returns the
// mean time of one Get in the median pass, in nanoseconds.
func timeGets(keys []string, lister corelisters.ConfigMapLister) (float64, error) {
	type name struct{ namespace, name string }
	names := make([]name, 0, len(keys))
	for _, key := range keys {
		namespace, n, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			return 0, err
		}
		names = append(names, name{namespace, n})
	}
	passes := make([]float64, 0, 5)
	for range 5 {
		begun := time.Now()
		for _, n := range names {
			if _, err := lister.ConfigMaps(n.namespace).Get(n.name); err != nil {
				return 0, err
			}
		}
		passes = append(passes, float64(time.Since(begun).Nanoseconds())/float64(max(len(names), 1)))
	}
	return median(passes), nil
}

func median(values []float64) float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

func run() error {
	namespace := flag.String("namespace", "", "namespace whose ConfigMaps the informer caches")
	strip := flag.Bool("strip", false, "clear metadata.managedFields with SetTransform")
	useJSON := flag.Bool("json", false, "ask for JSON instead of the generated clients' protobuf")
	runs := flag.Int("runs", 3, "measured syncs (after one warm-up)")
	timeout := flag.Duration("timeout", 5*time.Minute, "limit for one sync")
	hot := flag.Int("hot", 1000, "keys of the hot set: gets are also timed over the first this many keys in order")
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	flag.Parse()
	if *namespace == "" || *kubeconfig == "" || *runs < 1 {
		return fmt.Errorf("-namespace, -kubeconfig (or KUBECONFIG) and -runs >= 1 are required")
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	if *useJSON {
		config.ContentType = "application/json"
		config.AcceptContentTypes = "application/json"
	}
	rec := &recorder{}
	config.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return recordingTransport{next: next, rec: rec}
	})
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	// Warm-up: the first sync also pays for one-time allocations (TLS,
	// connection pool, scheme and codec caches), which are not cache memory.
	if _, err := measure(client, rec, *namespace, *strip, *hot, *timeout); err != nil {
		return err
	}
	out := report{
		Strip:         *strip,
		JSON:          *useJSON,
		Runs:          *runs,
		WatchListGate: clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient),
		WatchListEnv:  os.Getenv("KUBE_FEATURE_WatchListClient"),
	}
	var syncs, allocs, inuses, gets, hotGets []float64
	for range *runs {
		s, err := measure(client, rec, *namespace, *strip, *hot, *timeout)
		if err != nil {
			return err
		}
		objects := float64(max(s.Objects, 1))
		syncs = append(syncs, s.SyncMs)
		allocs = append(allocs, float64(s.HeapAlloc)/objects)
		inuses = append(inuses, float64(s.HeapInuse)/objects)
		gets = append(gets, s.GetNs)
		hotGets = append(hotGets, s.GetHotNs)
		out.Samples = append(out.Samples, s)
		out.Objects = s.Objects
		out.ListPath = s.ListPath
	}
	out.SyncMs = median(syncs)
	out.HeapAllocPerObject = median(allocs)
	out.HeapInusePerObject = median(inuses)
	out.GetNs = median(gets)
	out.GetHotNs = median(hotGets)
	out.Hot = *hot
	return json.NewEncoder(os.Stdout).Encode(out)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "informer-memory:", err)
		os.Exit(1)
	}
}
