package memdb

import (
	"context"
	"testing"

	"github.com/mongobench/mongobench/internal/ycsb"
)

func TestStoreSemantics(t *testing.T) {
	ctx := context.Background()
	s := New(Options{})
	db, _ := s.Factory()(ctx, 0, 1)
	v := []ycsb.Field{{Name: "f0", Value: []byte("a")}, {Name: "f1", Value: []byte("b")}}
	for _, k := range []string{"user3", "user1", "user2"} {
		if st := db.Insert(ctx, "t", []byte(k), v); st != ycsb.StatusOK {
			t.Fatalf("insert %s: %v", k, st)
		}
	}
	v[0].Value[0] = 'z' // the store copied the caller's buffer
	if st := db.Insert(ctx, "t", []byte("user1"), v); st != ycsb.StatusError || s.Duplicates() != 1 {
		t.Fatalf("duplicate insert: %v", st)
	}
	var res []ycsb.Field
	if st := db.Read(ctx, "t", []byte("user1"), []string{"f0"}, &res); st != ycsb.StatusOK || len(res) != 1 || string(res[0].Value) != "a" {
		t.Fatalf("read: %v %v", st, res)
	}
	if st := db.Read(ctx, "t", []byte("nope"), nil, nil); st != ycsb.StatusNotFound {
		t.Fatalf("read missing: %v", st)
	}
	if st := db.Scan(ctx, "t", []byte("user2"), 5, nil); st != ycsb.StatusOK {
		t.Fatalf("scan: %v", st)
	}
	if st := db.Scan(ctx, "t", []byte("zzz"), 5, nil); st != ycsb.StatusNotFound {
		t.Fatalf("scan past end: %v", st)
	}
	if st := db.Update(ctx, "t", []byte("user2"), []ycsb.Field{{Name: "f1", Value: []byte("c")}}); st != ycsb.StatusOK {
		t.Fatalf("update: %v", st)
	}
	if r, _ := s.Record("user2"); string(r["f1"]) != "c" {
		t.Fatalf("update not applied: %q", r["f1"])
	}
	if st := db.Delete(ctx, "t", []byte("user2")); st != ycsb.StatusOK || s.Len() != 2 {
		t.Fatalf("delete: %v, %d left", st, s.Len())
	}
	if keys := s.Keys(); len(keys) != 2 || keys[0] != "user1" || keys[1] != "user3" {
		t.Fatalf("keys %v", keys)
	}
}

func TestBatching(t *testing.T) {
	ctx := context.Background()
	s := New(Options{BatchSize: 3})
	db, _ := s.Factory()(ctx, 0, 1)
	want := []ycsb.Status{ycsb.StatusBatchedOK, ycsb.StatusBatchedOK, ycsb.StatusOK, ycsb.StatusBatchedOK}
	for i, w := range want {
		if st := db.Insert(ctx, "t", []byte{'k', byte('0' + i)}, nil); st != w {
			t.Fatalf("insert %d: %v, want %v", i, st, w)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("%d records before cleanup", s.Len())
	}
	if n, err := db.Cleanup(ctx); n != 0 || err != nil || s.Len() != 4 {
		t.Fatalf("cleanup: %d %v, %d records", n, err, s.Len())
	}
}
