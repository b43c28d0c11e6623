package ycsb

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Split points of a key set: the keys at which a collection sharded on a
// ranged _id is cut so that each of n shards owns an equal share of the
// loaded records.
//
// MongoDB orders string _id values by their bytes (the simple collation),
// so the order is that of the key strings, not of the key numbers:
// "user10" < "user2". The points are exact quantiles of that order, found
// without materialising the key set (recordcount may be 10^9): a radix
// selection over the key strings. Every pass generates all keys again
// (BuildKeyName, as the loaders do) and looks only at those that share
// the prefix already fixed for a target rank:
//
//   - a counting pass counts them per value of their next few bytes (a
//     bounded histogram), which fixes those bytes and the target's rank
//     among the keys sharing the longer prefix;
//   - once the keys sharing a target's prefix are few enough, a collecting
//     pass keeps them, sorts them and picks the target.
//
// Memory is the histogram (splitHistogramSize counters per worker) plus the
// collected keys (at most splitCollectLimit); time is a few passes over the
// key numbers, split over the CPUs. Keys are short strings of digits after
// "user", so hashed keys (19 random digits) need one counting pass and one
// collecting pass up to billions of keys; ordered keys with a large
// zeropadding share long runs of leading zeros and take a pass more.
//
// Run phases insert more keys later (keyspace.go): they are not part of the
// set, so they fall wherever their strings sort. Hashed keys spread over all
// ranges like the loaded ones; ordered keys past recordcount sort among the
// loaded keys with the same leading digits (unpadded) or after all of them
// (padded), which is what a ranged shard key on increasing keys means.

// SplitPoint starts one of the ranges a key set is cut into.
type SplitPoint struct {
	// Key is the smallest key of the range.
	Key string
	// Rank is the number of keys of the set that sort before Key.
	Rank int64
}

const (
	// splitHistogramSize bounds a counting pass's histogram: 12^5 counters
	// (2 MB) per worker, enough to fix 5 bytes of a key in one pass.
	splitHistogramSize = 248832
	// splitCollectLimit bounds the keys a collecting pass holds (about
	// 40 bytes each with their string headers).
	splitCollectLimit = 1 << 19
	// maxSplitWorkers bounds the goroutines of a pass.
	maxSplitWorkers = 8
)

// numSymbols is the alphabet of a key's bytes after "user", in byte order:
// 0 marks the end of a shorter key (which sorts first), then '-' (the one
// key number whose hash stays negative, see FNVHash64), then '0'..'9'.
const numSymbols = 12

// keyPrefix is what BuildKeyName writes before the number.
const keyPrefix = "user"

// SplitPoints cuts the key set, in MongoDB's order of string _id values,
// into n ranges whose sizes differ by at most one key, and returns the n-1
// keys that start ranges 1..n-1 (range 0 is everything below the first).
// Sizes follow the loaders' shares: the first Count%n ranges hold one key
// more. The set must hold at least n keys, all distinct.
func (ks KeySet) SplitPoints(ctx context.Context, n int) ([]SplitPoint, error) {
	s := splitter{
		ks:           ks,
		workers:      min(runtime.GOMAXPROCS(0), maxSplitWorkers),
		histSize:     splitHistogramSize,
		collectLimit: splitCollectLimit,
	}
	return s.run(ctx, n)
}

// splitter is one SplitPoints computation; tests shrink its bounds to force
// many passes on small sets.
type splitter struct {
	ks           KeySet
	workers      int
	histSize     int
	collectLimit int64
	// passes counts the passes over the key set (for tests).
	passes int
}

// target is one rank being selected.
type target struct {
	rank   int64  // in the whole set
	prefix string // bytes after "user" every candidate starts with
	rel    int64  // rank among the keys starting with prefix
	key    string // the result, once found (without "user")
	found  bool
}

// group is the keys sharing one prefix, with the targets among them.
type group struct {
	prefix  string
	count   int64 // keys starting with prefix
	collect bool  // keep the keys (else count them per next bytes)
	targets []int
	hist    []int64
	keys    []string
}

// pass is one scan over the key set.
type pass struct {
	depth  int // length of every group's prefix
	width  int // bytes a counting group's histogram looks at
	groups []*group
	index  map[string]int // group by prefix (depth > 0)
}

func (s *splitter) run(ctx context.Context, n int) ([]SplitPoint, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("split points: %d ranges: want at least 1", n)
	case n == 1:
		return nil, nil
	case s.ks.Count < int64(n):
		return nil, fmt.Errorf("split points: %s cannot fill %d ranges: want at least one key per range", s.ks, n)
	}
	targets := make([]target, n-1)
	root := &group{count: s.ks.Count}
	for i := range targets {
		targets[i].rank, _ = loadShare(0, s.ks.Count, i+1, n)
		targets[i].rel = targets[i].rank
		root.targets = append(root.targets, i)
	}
	p := s.plan(0, []*group{root})
	for len(p.groups) > 0 {
		if s.passes > 64 {
			return nil, errors.New("split points: no progress after 64 passes (a bug)")
		}
		if err := s.scan(ctx, p); err != nil {
			return nil, err
		}
		next, err := s.resolve(p, targets)
		if err != nil {
			return nil, err
		}
		p = s.plan(p.depth+p.width, next)
	}
	points := make([]SplitPoint, len(targets))
	for i, t := range targets {
		points[i] = SplitPoint{Key: keyPrefix + t.key, Rank: t.rank}
		if i > 0 && points[i].Key <= points[i-1].Key {
			return nil, fmt.Errorf("split points: key %q appears more than once in %s", t.key, s.ks)
		}
	}
	return points, nil
}

// plan decides how the next pass treats each group: collect the keys of
// groups small enough to sort within the memory bound, count the others
// over as many next bytes as the histogram bound allows.
func (s *splitter) plan(depth int, groups []*group) *pass {
	p := &pass{depth: depth, width: 1, groups: groups, index: map[string]int{}}
	counting := 0
	for i, g := range groups {
		g.collect = g.count <= s.collectLimit/int64(len(groups))
		if !g.collect {
			counting++
		}
		p.index[g.prefix] = i
	}
	if counting > 0 {
		for size := numSymbols * numSymbols; counting*size <= s.histSize; size *= numSymbols {
			p.width++
		}
	}
	return p
}

// scan runs one pass: every worker takes a contiguous part of the key
// numbers with its own histograms and key lists, merged at the end.
func (s *splitter) scan(ctx context.Context, p *pass) error {
	s.passes++
	workers := max(1, min(int64(s.workers), s.ks.Count/(1<<16)))
	parts := make([][]*group, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, cnt := loadShare(0, s.ks.Count, int(w), int(workers))
		local := make([]*group, len(p.groups))
		for i, g := range p.groups {
			local[i] = &group{collect: g.collect}
			if !g.collect {
				local[i].hist = make([]int64, pow(numSymbols, p.width))
			}
		}
		parts[w] = local
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = s.scanRange(ctx, p, local, lo, lo+cnt)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("split points: %w", err)
	}
	for i, g := range p.groups {
		if g.collect {
			for _, local := range parts {
				g.keys = append(g.keys, local[i].keys...)
			}
			continue
		}
		g.hist = parts[0][i].hist
		for _, local := range parts[1:] {
			for b, c := range local[i].hist {
				g.hist[b] += c
			}
		}
	}
	return nil
}

func (s *splitter) scanRange(ctx context.Context, p *pass, local []*group, lo, hi int64) error {
	buf := make([]byte, 0, keyBufferSize(s.ks.ZeroPadding))
	for i := lo; i < hi; i++ {
		if (i-lo)&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("canceled: %w", err)
			}
		}
		buf = s.ks.AppendKey(buf[:0], i)
		key := buf[len(keyPrefix):]
		gi := 0
		if p.depth > 0 {
			if len(key) < p.depth {
				continue
			}
			var ok bool
			if gi, ok = p.index[string(key[:p.depth])]; !ok {
				continue
			}
		}
		g := local[gi]
		if g.collect {
			g.keys = append(g.keys, string(key))
			continue
		}
		b := 0
		for j := p.depth; j < p.depth+p.width; j++ {
			b = b*numSymbols + symbolAt(key, j)
		}
		g.hist[b]++
	}
	return nil
}

// symbolAt is the place of key[j] in byte order among the bytes a key can
// hold, 0 past the end of the key.
func symbolAt(key []byte, j int) int {
	if j >= len(key) {
		return 0
	}
	if key[j] == '-' {
		return 1
	}
	return int(key[j]-'0') + 2
}

// symbolByte is symbolAt's inverse for symbols above 0.
func symbolByte(sym int) byte {
	if sym == 1 {
		return '-'
	}
	return byte('0' + sym - 2)
}

// resolve finds each group's targets after a pass: in the sorted keys of a
// collecting group, or in the histogram bucket of a counting group, which
// either ends the key (a single string: found) or becomes the longer prefix
// of a group of the next pass.
func (s *splitter) resolve(p *pass, targets []target) ([]*group, error) {
	var next []*group
	byPrefix := map[string]*group{}
	for _, g := range p.groups {
		if g.collect {
			if int64(len(g.keys)) != g.count {
				return nil, fmt.Errorf("split points: %d keys start with %q, the previous pass counted %d (a bug)", len(g.keys), g.prefix, g.count)
			}
			slices.Sort(g.keys)
			for _, ti := range g.targets {
				t := &targets[ti]
				t.key, t.found = g.keys[t.rel], true
			}
			continue
		}
		for _, ti := range g.targets {
			t := &targets[ti]
			var cum int64
			b := 0
			for ; b < len(g.hist) && cum+g.hist[b] <= t.rel; b++ {
				cum += g.hist[b]
			}
			if b == len(g.hist) {
				return nil, fmt.Errorf("split points: rank %d past the %d keys starting with %q (a bug)", t.rel, cum, g.prefix)
			}
			bytes, ended := bucketBytes(b, p.width)
			if ended {
				// Every key in the bucket is this one string.
				t.key, t.found = g.prefix+bytes, true
				continue
			}
			t.prefix, t.rel = g.prefix+bytes, t.rel-cum
			ng := byPrefix[t.prefix]
			if ng == nil {
				ng = &group{prefix: t.prefix, count: g.hist[b]}
				byPrefix[t.prefix] = ng
				next = append(next, ng)
			}
			ng.targets = append(ng.targets, ti)
		}
	}
	return next, nil
}

// bucketBytes decodes a histogram bucket into its bytes, and whether a key
// ends within it.
func bucketBytes(b, width int) (string, bool) {
	syms := make([]int, width)
	for j := width - 1; j >= 0; j-- {
		syms[j] = b % numSymbols
		b /= numSymbols
	}
	var sb strings.Builder
	for _, sym := range syms {
		if sym == 0 {
			return sb.String(), true
		}
		sb.WriteByte(symbolByte(sym))
	}
	return sb.String(), false
}

func pow(b, e int) int {
	r := 1
	for range e {
		r *= b
	}
	return r
}
