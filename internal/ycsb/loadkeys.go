package ycsb

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/mongobench/mongobench/internal/contract"
)

// The keys of a Load phase, known before it runs. A ranged shard key is
// pre-split at the quantiles of exactly this key set (see SplitPoints), so
// the bootstrap derives it with the same code the loaders use: LoadKeys
// builds the Workload of the first and of the last loader and reads their
// shares (Workload.LoadRange); keys are BuildKeyName's.

// loadKeyProperties decide which keys a Load phase inserts; LoadKeys reads
// nothing else.
var loadKeyProperties = [...]string{contract.PropRecordCount, "insertstart", "insertcount", contract.PropInsertOrder, contract.PropZeroPadding,
	contract.PropLoaderCount}

// LoadKeyProperties returns the names of the properties that decide which
// keys a Load phase inserts. LoadKeys ignores every other property, so a
// caller may pass on just these (the controller does, to the bootstrap Job).
func LoadKeyProperties() []string { return slices.Clone(loadKeyProperties[:]) }

// KeySet is the keys of the key numbers [Start, Start+Count), as
// BuildKeyName writes them.
type KeySet struct {
	Start, Count int64
	ZeroPadding  int
	Ordered      bool
}

// AppendKey appends the key of the set's i-th key number (0 <= i < Count) to
// dst.
func (ks KeySet) AppendKey(dst []byte, i int64) []byte {
	return BuildKeyName(dst, ks.Start+i, ks.ZeroPadding, ks.Ordered)
}

// String describes the set, for logs.
func (ks KeySet) String() string {
	order := "hashed"
	if ks.Ordered {
		order = "ordered"
	}
	return fmt.Sprintf("%d keys from key number %d (insertorder %s, zeropadding %d)", ks.Count, ks.Start, order, ks.ZeroPadding)
}

// LoadKeys returns the keys a Load phase with properties p inserts, over all
// its loaders. Loader i of loader.count inserts its contiguous share of the
// key numbers (see keyspace.go), so together they insert one contiguous
// range: from the first loader's first key number to the last loader's last.
// With one loader this is YCSB's rule: insertcount records from insertstart
// if insertcount is set, else recordcount records.
//
// Only the properties of LoadKeyProperties are read. A Load phase that
// inserts until it is stopped (one loader, recordcount 0 and no
// insertcount) has no key set known in advance: that is an error.
func LoadKeys(p *Properties) (KeySet, error) {
	q := NewProperties()
	for _, k := range loadKeyProperties {
		if v, ok := p.Get(k); ok {
			q.Set(k, v)
		}
	}
	n, err := q.Int(contract.PropLoaderCount, 1)
	if err != nil {
		return KeySet{}, fmt.Errorf("load keys: %w", err)
	}
	share := func(i int) (*Workload, error) {
		qi := q.Clone()
		qi.Set("loader.index", strconv.Itoa(i))
		w, err := NewWorkload(qi)
		if err != nil {
			return nil, fmt.Errorf("load keys: %w", err)
		}
		return w, nil
	}
	first, err := share(0)
	if err != nil {
		return KeySet{}, err
	}
	last := first
	if n > 1 {
		if last, err = share(n - 1); err != nil {
			return KeySet{}, err
		}
	}
	start, _ := first.LoadRange()
	lastStart, lastCount := last.LoadRange()
	if n == 1 && lastCount == 0 {
		return KeySet{}, errors.New("load keys: the Load phase inserts until it is stopped (recordcount 0 and no insertcount): its keys are not known in advance")
	}
	return KeySet{Start: start, Count: lastStart + lastCount - start, ZeroPadding: first.zeroPadding, Ordered: first.ordered}, nil
}
