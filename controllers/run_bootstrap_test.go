package controllers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/results"
)

func TestBootstrappedMessage(t *testing.T) {
	hashed := &results.Bootstrap{ServerVersion: "8.0.4", Namespace: "ycsb.usertable", Sharded: true, ShardKey: `{"_id":"hashed"}`,
		Shards: []results.ShardChunks{{Name: "shard0", Chunks: 1}, {Name: "shard1", Chunks: 1}}}
	if got, want := bootstrappedMessage(hashed), `MongoDB 8.0.4; ycsb.usertable sharded on {"_id":"hashed"}, chunks shard0=1 shard1=1`; got != want {
		t.Errorf("hashed:\n got %s\nwant %s", got, want)
	}
	ranged := *hashed
	ranged.ShardKey, ranged.SplitPoints = `{"_id":1}`, []string{"user4999"}
	if got, want := bootstrappedMessage(&ranged), `MongoDB 8.0.4; ycsb.usertable sharded on {"_id":1}, chunks shard0=1 shard1=1, split at user4999`; got != want {
		t.Errorf("ranged:\n got %s\nwant %s", got, want)
	}
	if got := bootstrappedMessage(&results.Bootstrap{ServerVersion: "7.0.14"}); got != "MongoDB 7.0.14" {
		t.Errorf("standalone: %s", got)
	}

	// The largest report the API allows: 16 shards, 15 split points of the
	// longest keys (zeropadding up to 20, or a 20-character hash), and
	// beyond: the note stays within the events API's 1024 bytes.
	big := ranged
	big.Shards, big.SplitPoints = nil, nil
	for i := range 64 {
		big.Shards = append(big.Shards, results.ShardChunks{Name: fmt.Sprintf("shard%d", i), Chunks: 1})
		big.SplitPoints = append(big.SplitPoints, "user"+strings.Repeat("9", 20))
	}
	if got := bootstrappedMessage(&big); len(got) > MaxEventMessage {
		t.Errorf("%d bytes: %s", len(got), got)
	}
}
