package ycsb

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestLoadKeysIsTheUnionOfTheLoadersShares: the key set equals what the
// loaders of the phase insert, loader by loader, as their workloads say.
func TestLoadKeysIsTheUnionOfTheLoadersShares(t *testing.T) {
	for _, tc := range [][]string{
		{"recordcount=1000"},
		{"recordcount=1000", "insertorder=ordered", "zeropadding=12"},
		{"recordcount=1000", "insertstart=100"},
		{"recordcount=1000", "insertstart=100", "insertcount=250"},
		{"recordcount=7", "insertorder=ordered"},
		{"recordcount=5000000", "insertorder=hashed", "zeropadding=1"},
	} {
		for _, loaders := range []int{1, 2, 3, 5} {
			kv := append(append([]string(nil), tc...), "loader.count="+strconv.Itoa(loaders))
			t.Run(strings.Join(kv, ","), func(t *testing.T) {
				ks, err := LoadKeys(props(kv...))
				if err != nil {
					t.Fatal(err)
				}
				next := ks.Start
				for i := range loaders {
					w, err := NewWorkload(props(append(kv, "loader.index="+strconv.Itoa(i))...))
					if err != nil {
						t.Fatal(err)
					}
					start, count := w.LoadRange()
					if start != next {
						t.Errorf("loader %d starts at %d, want %d (contiguous shares)", i, start, next)
					}
					next = start + count
					if w.zeroPadding != ks.ZeroPadding || w.ordered != ks.Ordered {
						t.Errorf("loader %d: padding %d ordered %v, key set %+v", i, w.zeroPadding, w.ordered, ks)
					}
				}
				if next != ks.Start+ks.Count {
					t.Errorf("loaders end at %d, key set at %d", next, ks.Start+ks.Count)
				}
			})
		}
	}
}

// TestLoadKeysOneLoaderFollowsYCSB: with one loader and insertstart but no
// insertcount, YCSB's client inserts recordcount records from insertstart.
func TestLoadKeysOneLoaderFollowsYCSB(t *testing.T) {
	ks, err := LoadKeys(props("recordcount=1000", "insertstart=100"))
	if err != nil {
		t.Fatal(err)
	}
	if ks.Start != 100 || ks.Count != 1000 {
		t.Errorf("key set %+v, want 1000 keys from 100", ks)
	}
	ks, err = LoadKeys(props("recordcount=1000", "insertstart=100", "loader.count=2"))
	if err != nil {
		t.Fatal(err)
	}
	if ks.Start != 100 || ks.Count != 900 {
		t.Errorf("key set %+v, want 900 keys from 100 (the shares of insertcount = recordcount - insertstart)", ks)
	}
}

// TestLoadKeysReadsOnlyItsProperties: the bootstrap Job gets only
// LoadKeyProperties, so nothing else may change the set, or fail it.
func TestLoadKeysReadsOnlyItsProperties(t *testing.T) {
	base := []string{"recordcount=5000", "insertorder=ordered", "zeropadding=3", "loader.count=4"}
	want, err := LoadKeys(props(base...))
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadKeys(props(append(base, "fieldlength=oops", "requestdistribution=nonsense", "operationcount=1",
		"loader.index=3", "loader.insertkeyoffset=1099511627776", "mongodb.url=mongodb://x/ycsb", "table=t")...))
	if err != nil {
		t.Fatalf("unrelated properties changed the outcome: %v", err)
	}
	if got != want {
		t.Errorf("key set %+v with unrelated properties, %+v without", got, want)
	}
	names := LoadKeyProperties()
	names[0] = "changed"
	if LoadKeyProperties()[0] != "recordcount" {
		t.Error("LoadKeyProperties returns a slice that aliases its state")
	}
}

func TestLoadKeysErrors(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		{nil, "inserts until it is stopped"},
		{[]string{"recordcount=0"}, "inserts until it is stopped"},
		{[]string{"recordcount=100", "insertstart=50", "insertcount=60"}, "exceed recordcount"},
		{[]string{"recordcount=abc"}, "recordcount"},
		{[]string{"recordcount=100", "loader.count=0"}, "loader.count"},
	} {
		_, err := LoadKeys(props(tc.kv...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadKeys(%v) = %v, want an error with %q", tc.kv, err, tc.want)
		}
	}
}

func TestKeySetAppendKey(t *testing.T) {
	ks := KeySet{Start: 41, Count: 3, ZeroPadding: 5, Ordered: true}
	var got []string
	for i := range ks.Count {
		got = append(got, string(ks.AppendKey(nil, i)))
	}
	if fmt.Sprint(got) != "[user00041 user00042 user00043]" {
		t.Errorf("keys %v", got)
	}
	if k := string((KeySet{Start: 1, ZeroPadding: 1}).AppendKey(nil, 0)); k != "user8517097267634966620" {
		t.Errorf("hashed key 1 = %s", k)
	}
}
