// Command workqueue is the client-go side of kubegen-runtime's workqueue
// benchmark: add → get → done cycles per second through client-go's typed
// rate-limiting queue (the queue a client-go controller builds, and the one
// matching kubegen's WorkQueue, which always carries a rate limiter).
//
// A producer adds -items distinct items, yielding every 256 adds, while 1 or
// 8 worker goroutines take them with Get and finish them with Done; the run
// ends when ShutDownWithDrain returns and every worker has stopped. Each
// configuration runs once as a warm-up and -runs times measured, without
// metrics (an unnamed queue) and with the Prometheus metrics of
// k8s.io/component-base (a named queue). One JSON line per configuration
// gives the median, minimum and maximum in cycles/s.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	// Registers the Prometheus provider for named queues, as
	// kube-controller-manager does.
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
)

type result struct {
	Workers int     `json:"workers"`
	Metrics bool    `json:"metrics"`
	Items   uint64  `json:"items"`
	Runs    int     `json:"runs"`
	Median  float64 `json:"median_cycles_per_sec"`
	Min     float64 `json:"min_cycles_per_sec"`
	Max     float64 `json:"max_cycles_per_sec"`
}

// runOnce pushes items through a fresh queue with the given workers and
// returns the elapsed time.
func runOnce(items uint64, workers int, metrics bool) (time.Duration, error) {
	name := ""
	if metrics {
		name = "bench"
	}
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[uint64](),
		workqueue.TypedRateLimitingQueueConfig[uint64]{Name: name},
	)
	// Stops the delaying queue's goroutine once the run is over.
	defer queue.ShutDown()
	start := time.Now()
	handled := make([]uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var n uint64
			for {
				item, shutdown := queue.Get()
				if shutdown {
					break
				}
				queue.Done(item)
				n++
			}
			handled[w] = n
		})
	}
	for item := range items {
		queue.Add(item)
		if item%256 == 0 {
			runtime.Gosched()
		}
	}
	queue.ShutDownWithDrain()
	wg.Wait()
	elapsed := time.Since(start)
	var total uint64
	for _, n := range handled {
		total += n
	}
	if total != items {
		return 0, fmt.Errorf("%d items handed out, want %d", total, items)
	}
	return elapsed, nil
}

func measure(items uint64, runs, workers int, metrics bool) (result, error) {
	if _, err := runOnce(items, workers, metrics); err != nil { // warm-up
		return result{}, err
	}
	rates := make([]float64, 0, runs)
	for range runs {
		elapsed, err := runOnce(items, workers, metrics)
		if err != nil {
			return result{}, err
		}
		rates = append(rates, float64(items)/elapsed.Seconds())
	}
	slices.Sort(rates)
	return result{
		Workers: workers,
		Metrics: metrics,
		Items:   items,
		Runs:    runs,
		Median:  rates[runs/2],
		Min:     rates[0],
		Max:     rates[runs-1],
	}, nil
}

func run() error {
	items := flag.Uint64("items", 200_000, "items per run")
	runs := flag.Int("runs", 5, "measured runs per configuration")
	workerList := flag.String("workers", "1,8", "comma-separated worker counts")
	flag.Parse()
	if *runs < 1 {
		return fmt.Errorf("-runs must be at least 1")
	}
	var workers []int
	for _, field := range strings.Split(*workerList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 1 {
			return fmt.Errorf("bad worker count %q", field)
		}
		workers = append(workers, n)
	}
	encoder := json.NewEncoder(os.Stdout)
	for _, metrics := range []bool{false, true} {
		for _, w := range workers {
			r, err := measure(*items, *runs, w, metrics)
			if err != nil {
				return err
			}
			if err := encoder.Encode(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "workqueue:", err)
		os.Exit(1)
	}
}
