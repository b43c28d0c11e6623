package growth

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

func lookup(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	c, err := FromProperties(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		TargetRecords: 1_000_000, CheckpointEvery: 100_000, InsertMode: results.InsertAcknowledged, BatchSize: 1,
		InsertThreads: 1, QueryThreads: 4, QueryDuration: 30 * time.Second, Queries: []string{"Q1", "Q2", "Q3", "Q4"},
		Q1Limit: 10, Q2Limit: 10, Q2Projection: []string{"number", "number1"}, Q3Skip: 100, Q3Limit: 10, Q4Limit: 100,
		Documents: DocumentConfig{Seed: 1, MatchesPerValue: 10, Number1: Number1Paired, PayloadSize: 945,
			DateStart: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), DateStep: time.Second, DateJitter: 10 * time.Second},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults:\n%+v\nwant\n%+v", c, want)
	}
	if c.Values() != 100_000 {
		t.Errorf("N = %d", c.Values())
	}
	// The -h table's defaults are the ones applied.
	for _, p := range KnownProperties() {
		got := c.Properties()[p.Name]
		switch {
		case p.Name == contract.PropGrowthCheckpointEvery, p.Name == contract.PropGrowthBatchSize && got == "1",
			p.Name == contract.PropGrowthQueries && got == "q1,q2,q3,q4":
			// targetrecords/10; batch mode's only; canonical case.
		case got != p.Default:
			t.Errorf("%s: the table says %q, the default is %q", p.Name, p.Default, got)
		}
	}
	// checkpointevery's default rounds up.
	c, err = FromProperties(lookup(map[string]string{contract.PropGrowthTargetRecords: "25"}))
	if err != nil || c.CheckpointEvery != 3 || Checkpoints(c.TargetRecords, c.CheckpointEvery) != 9 {
		t.Errorf("25 records: every %d, %v", c.CheckpointEvery, err)
	}
}

// TestEveryPropertyIsRead: FromProperties reads exactly the properties of
// KnownProperties, each changing the configuration, and Properties writes
// them all back so that FromProperties reads the same configuration.
func TestEveryPropertyIsRead(t *testing.T) {
	set := map[string]string{
		contract.PropGrowthTargetRecords: "2_000_000", contract.PropGrowthCheckpointEvery: "250000",
		contract.PropGrowthInsertMode: "BATCH", contract.PropGrowthBatchSize: "500", contract.PropGrowthInsertThreads: "2",
		contract.PropGrowthQueryThreads: "16", contract.PropGrowthQueryDuration: "1m30s", contract.PropGrowthQueries: " q3, Q1 ",
		contract.PropGrowthQ1Limit: "5", contract.PropGrowthQ2Limit: "6", contract.PropGrowthQ2Projection: "date, payload",
		contract.PropGrowthQ3Skip: "0", contract.PropGrowthQ3Limit: "7", contract.PropGrowthQ4Limit: "8",
		contract.PropGrowthMatchesPerValue: "20", contract.PropGrowthNumber1: "Independent", contract.PropGrowthPayloadSize: "100",
		contract.PropGrowthDateStart: "2020-02-03T04:05:06Z", contract.PropGrowthDateStep: "2s", contract.PropGrowthDateJitter: "0s",
		contract.PropGrowthSeed: "18446744073709551615",
	}
	var read []string
	c, err := FromProperties(func(k string) (string, bool) {
		read = append(read, k)
		v, ok := set[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range KnownProperties() {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	slices.Sort(read)
	if read = slices.Compact(read); !slices.Equal(read, names) {
		t.Errorf("read %v\nknown %v", read, names)
	}
	if len(set) != len(names) {
		t.Errorf("the test sets %d properties of %d", len(set), len(names))
	}
	want := Config{
		TargetRecords: 2_000_000, CheckpointEvery: 250_000, InsertMode: results.InsertBatch, BatchSize: 500, InsertThreads: 2,
		QueryThreads: 16, QueryDuration: 90 * time.Second, Queries: []string{"Q3", "Q1"}, Q1Limit: 5, Q2Limit: 6,
		Q2Projection: []string{"date", "payload"}, Q3Skip: 0, Q3Limit: 7, Q4Limit: 8,
		Documents: DocumentConfig{Seed: 1<<64 - 1, MatchesPerValue: 20, Number1: Number1Independent, PayloadSize: 100,
			DateStart: time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC), DateStep: 2 * time.Second},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("config:\n%+v\nwant\n%+v", c, want)
	}
	back, err := FromProperties(lookup(c.Properties()))
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Errorf("read back from Properties: %+v, %v", back, err)
	}
	if got := c.QuerySpecs(); !reflect.DeepEqual(got, []QuerySpec{{Name: "Q3", Skip: 0, Limit: 7, SortDateDesc: true}, {Name: "Q1", Limit: 5}}) {
		t.Errorf("query specs %+v", got)
	}
}

func TestPropertyErrors(t *testing.T) {
	for _, tc := range []struct {
		kv   map[string]string
		want string
	}{
		{map[string]string{contract.PropGrowthTargetRecords: "0"}, `growth.targetrecords: "0" must be from 1`},
		{map[string]string{contract.PropGrowthTargetRecords: "lots"}, "is not a whole number"},
		{map[string]string{contract.PropGrowthTargetRecords: "1000", contract.PropGrowthCheckpointEvery: "4"},
			"1000 records every 4 make 250 checkpoints, at most 200 allowed"},
		{map[string]string{contract.PropGrowthTargetRecords: "1000", contract.PropGrowthCheckpointEvery: "2000"}, "is more than"},
		{map[string]string{contract.PropGrowthInsertMode: "safe"}, "is not one of unacknowledged, acknowledged, batch"},
		{map[string]string{contract.PropGrowthBatchSize: "100001"}, "must be from 1 to 100000"},
		{map[string]string{contract.PropGrowthQueries: "q1,q5"}, `names "q5"`},
		{map[string]string{contract.PropGrowthQueries: "q1,Q1"}, "names Q1 twice"},
		{map[string]string{contract.PropGrowthQueryDuration: "30"}, "is not a duration"},
		{map[string]string{contract.PropGrowthQueryDuration: "0s"}, "must be positive when queries run"},
		{map[string]string{contract.PropGrowthQ4Limit: "0"}, "must be from 1"},
		{map[string]string{contract.PropGrowthQ2Projection: "$where"}, "not a field name"},
		{map[string]string{contract.PropGrowthQ2Projection: " , "}, "names no field"},
		{map[string]string{contract.PropGrowthNumber1: "correlated"}, "is not one of paired, independent"},
		{map[string]string{contract.PropGrowthDateStart: "yesterday"}, "is not an RFC 3339 time"},
		{map[string]string{contract.PropGrowthDateStep: "1500us"}, "whole, non-negative milliseconds"},
		{map[string]string{contract.PropGrowthDateStep: "1000000h"}, "run past the year 9999"},
		{map[string]string{contract.PropGrowthPayloadSize: "-1"}, "must be from 0"},
		{map[string]string{contract.PropGrowthSeed: "-1"}, "not a whole, non-negative number"},
		{map[string]string{contract.PropGrowthInsertThreads: "0", contract.PropGrowthQueryThreads: "2000"},
			`growth.insertthreads: "0" must be from 1 to 1024` + "\n" + `growth.querythreads: "2000" must be from 1 to 1024`},
	} {
		_, err := FromProperties(lookup(tc.kv))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.kv, err, tc.want)
		}
	}
	// Batches are batch mode's only: the property is ignored otherwise.
	c, err := FromProperties(lookup(map[string]string{contract.PropGrowthBatchSize: "50"}))
	if err != nil || c.BatchSize != 1 {
		t.Errorf("batchsize outside batch mode: %d, %v", c.BatchSize, err)
	}
	// No queries need no duration.
	if _, err := FromProperties(lookup(map[string]string{contract.PropGrowthQueries: "", contract.PropGrowthQueryDuration: "0s"})); err != nil {
		t.Errorf("no queries: %v", err)
	}
}

func TestCheckpointSchedule(t *testing.T) {
	for _, tc := range []struct {
		target, every int64
		want          []int64
	}{
		{10, 10, []int64{10}},
		{10, 3, []int64{3, 6, 9, 10}},
		{50_000, 10_000, []int64{10_000, 20_000, 30_000, 40_000, 50_000}},
		{200_000_000, 10_000_000, nil},
		{1, 1, []int64{1}},
	} {
		n := Checkpoints(tc.target, tc.every)
		var got []int64
		for j := 1; j <= int(n); j++ {
			got = append(got, CheckpointRecords(tc.target, tc.every, j))
		}
		if tc.want == nil {
			if n != 20 || got[19] != tc.target {
				t.Errorf("%d every %d: %d checkpoints, last at %d", tc.target, tc.every, n, got[n-1])
			}
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d every %d: %v, want %v", tc.target, tc.every, got, tc.want)
		}
	}
	if Checkpoints(0, 1) != 0 || Checkpoints(1, 0) != 0 {
		t.Error("checkpoints of nothing")
	}
}
