package ycsb

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"sort"
	"testing"
	"time"
)

// bruteSplit is the independent reference: every key generated, sorted as
// Go (and MongoDB) compare strings, byte by byte; point i is the key at the
// rank where range i starts, ranges sized like the loaders' shares.
func bruteSplit(ks KeySet, n int) []SplitPoint {
	return pointsOfSorted(sortedKeys(ks), n)
}

func sortedKeys(ks KeySet) []string {
	keys := make([]string, ks.Count)
	for i := range keys {
		keys[i] = string(ks.AppendKey(nil, int64(i)))
	}
	sort.Strings(keys)
	return keys
}

func pointsOfSorted(keys []string, n int) []SplitPoint {
	var out []SplitPoint
	count := int64(len(keys))
	rank := int64(0)
	for i := range n - 1 {
		size := count / int64(n)
		if int64(i) < count%int64(n) {
			size++
		}
		rank += size
		out = append(out, SplitPoint{Key: keys[rank], Rank: rank})
	}
	return out
}

// countBelow counts the keys of the set that sort before key, by brute force.
func countBelow(ks KeySet, key string) int64 {
	var c int64
	for i := range ks.Count {
		if string(ks.AppendKey(nil, i)) < key {
			c++
		}
	}
	return c
}

func samePoints(t *testing.T, what string, got, want []SplitPoint) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// TestSplitPointsByteOrder: keys compare as strings, so user10 < user2.
func TestSplitPointsByteOrder(t *testing.T) {
	ks := KeySet{Start: 0, Count: 21, ZeroPadding: 1, Ordered: true}
	got, err := ks.SplitPoints(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	// Sorted: user0 user1 user10 ... user19 user2 user20 user3 ... user9;
	// 21 keys in two ranges of 11 and 10: the second starts at rank 11.
	samePoints(t, "split of user0..user20", got, []SplitPoint{{Key: "user19", Rank: 11}})
	got, err = KeySet{Start: 0, Count: 21, ZeroPadding: 2, Ordered: true}.SplitPoints(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	samePoints(t, "split of user00..user20", got, []SplitPoint{{Key: "user11", Rank: 11}})
}

// TestSplitPointsAgainstBruteForce compares the selection with sorting the
// whole set, for hashed and ordered keys, several paddings, insertstart > 0
// and 2..16 ranges; with the default bounds (one collecting pass for small
// sets) and with tiny ones that force many counting passes.
func TestSplitPointsAgainstBruteForce(t *testing.T) {
	type bounds struct {
		name         string
		histSize     int
		collectLimit int64
		workers      int
	}
	all := []bounds{
		{"default", splitHistogramSize, splitCollectLimit, 2},
		{"tiny", numSymbols, 16, 3},
		{"small", numSymbols * numSymbols, 200, 1},
	}
	sets := []KeySet{}
	for _, ordered := range []bool{false, true} {
		for _, pad := range []int{1, 12, 22} {
			for _, start := range []int64{0, 12345} {
				for _, count := range []int64{16, 17, 1000, 4321} {
					sets = append(sets, KeySet{Start: start, Count: count, ZeroPadding: pad, Ordered: ordered})
				}
			}
		}
	}
	for _, ks := range sets {
		for _, b := range all {
			t.Run(fmt.Sprintf("%s/%s", ks, b.name), func(t *testing.T) {
				for n := 2; n <= 16; n++ {
					s := splitter{ks: ks, workers: b.workers, histSize: b.histSize, collectLimit: b.collectLimit}
					got, err := s.run(context.Background(), n)
					if err != nil {
						t.Fatalf("n=%d: %v", n, err)
					}
					samePoints(t, fmt.Sprintf("n=%d (%d passes)", n, s.passes), got, bruteSplit(ks, n))
				}
			})
		}
	}
}

// TestSplitPointsMedium: sets large enough for several workers and, with the
// default bounds, a counting pass; each point's rank is checked by counting
// the keys below it independently, and the range sizes differ by at most one.
func TestSplitPointsMedium(t *testing.T) {
	if testing.Short() {
		t.Skip("medium sets take a few seconds")
	}
	for _, ks := range []KeySet{
		{Start: 0, Count: 600_000, ZeroPadding: 1, Ordered: false},
		{Start: 7, Count: 600_000, ZeroPadding: 1, Ordered: true},
		{Start: 1_000_000, Count: 600_000, ZeroPadding: 12, Ordered: true},
		{Start: 3, Count: 600_000, ZeroPadding: 12, Ordered: false},
	} {
		t.Run(ks.String(), func(t *testing.T) {
			sorted := sortedKeys(ks)
			for _, n := range []int{2, 3, 7, 16} {
				s := splitter{ks: ks, workers: 4, histSize: splitHistogramSize, collectLimit: 1 << 14}
				got, err := s.run(context.Background(), n)
				if err != nil {
					t.Fatal(err)
				}
				if s.passes < 2 {
					t.Errorf("n=%d: %d passes: the counting pass was not exercised", n, s.passes)
				}
				samePoints(t, fmt.Sprintf("n=%d", n), got, pointsOfSorted(sorted, n))
				if n == 3 {
					prev := int64(0)
					for i, p := range got {
						below := countBelow(ks, p.Key)
						if below != p.Rank {
							t.Errorf("point %d %s: %d keys below it, rank says %d", i, p.Key, below, p.Rank)
						}
						if size := below - prev; size != ks.Count/3 && size != ks.Count/3+1 {
							t.Errorf("range %d holds %d keys, want %d or %d", i, size, ks.Count/3, ks.Count/3+1)
						}
						prev = below
					}
				}
			}
		})
	}
}

func TestSplitPointsEdges(t *testing.T) {
	ctx := context.Background()
	ks := KeySet{Count: 5, ZeroPadding: 1}
	if p, err := ks.SplitPoints(ctx, 1); err != nil || p != nil {
		t.Errorf("one range: %v, %v; want no points", p, err)
	}
	if _, err := ks.SplitPoints(ctx, 0); err == nil {
		t.Error("zero ranges: no error")
	}
	if _, err := ks.SplitPoints(ctx, 6); err == nil {
		t.Error("5 keys in 6 ranges: no error")
	}
	got, err := ks.SplitPoints(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	samePoints(t, "one key per range", got, bruteSplit(ks, 5))

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (KeySet{Count: 1 << 20}).SplitPoints(canceled, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: err = %v", err)
	}
}

func TestBucketBytes(t *testing.T) {
	for _, tc := range []struct {
		b, width int
		want     string
		ended    bool
	}{
		{0, 3, "", true},
		{2*144 + 3*12 + 11, 3, "019", false},
		{11*144 + 0*12 + 0, 3, "9", true},
		{1*12 + 2, 2, "-0", false},
	} {
		got, ended := bucketBytes(tc.b, tc.width)
		if got != tc.want || ended != tc.ended {
			t.Errorf("bucketBytes(%d, %d) = %q, %v; want %q, %v", tc.b, tc.width, got, ended, tc.want, tc.ended)
		}
	}
}

// BenchmarkSplitPoints10M measures 10^7 keys (go test -bench SplitPoints
// -benchmem; peak memory: run the test binary under /usr/bin/time -v).
func BenchmarkSplitPoints10M(b *testing.B) {
	for _, ks := range []KeySet{
		{Count: 10_000_000, ZeroPadding: 1, Ordered: false},
		{Count: 10_000_000, ZeroPadding: 1, Ordered: true},
		{Count: 10_000_000, ZeroPadding: 12, Ordered: true},
	} {
		for _, n := range []int{3, 16} {
			b.Run(fmt.Sprintf("%s/n=%d", ks, n), func(b *testing.B) {
				b.ReportAllocs()
				var peak uint64
				for range b.N {
					stop := sampleHeap(&peak)
					if _, err := ks.SplitPoints(context.Background(), n); err != nil {
						b.Fatal(err)
					}
					stop()
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			})
		}
	}
}

// sampleHeap records the largest heap (live and not yet collected objects)
// seen every millisecond until stop is called. runtime/metrics does not
// stop the world, unlike runtime.ReadMemStats.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			*peak = max(*peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
