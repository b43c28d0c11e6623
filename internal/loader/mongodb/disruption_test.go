package mongodb

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo/address"
)

// TestTopologyChangedSecondaries: the monitor's latest description names
// the primary and the secondaries; Secondary picks the first secondary
// by address, and none once the description has none.
func TestTopologyChangedSecondaries(t *testing.T) {
	c := &Client{primaries: &primaries{}}
	desc := func(kinds map[string]string) *event.TopologyDescriptionChangedEvent {
		e := &event.TopologyDescriptionChangedEvent{}
		for addr, kind := range kinds {
			e.NewDescription.Servers = append(e.NewDescription.Servers,
				event.ServerDescription{Addr: address.Address(addr), Kind: kind, ElectionID: bson.NewObjectID()})
		}
		return e
	}
	c.primaries.topologyChanged(desc(map[string]string{"rs-2:27017": "RSSecondary", "rs-0:27017": "RSPrimary", "rs-1:27017": "RSSecondary"}))
	if got := c.Secondary(); got != "rs-1:27017" {
		t.Errorf("secondary %q, want rs-1:27017", got)
	}
	if p := c.Primaries(); len(p) != 1 || p[0].Addr != "rs-0:27017" {
		t.Errorf("primaries %+v", p)
	}
	c.primaries.topologyChanged(desc(map[string]string{"rs-0:27017": "Unknown", "rs-1:27017": "RSPrimary", "rs-2:27017": "RSGhost"}))
	if got := c.Secondary(); got != "" {
		t.Errorf("secondary %q, want none", got)
	}
	if (&Client{}).Secondary() != "" {
		t.Error("a client without Config.Disruptions knows no secondary")
	}
}
