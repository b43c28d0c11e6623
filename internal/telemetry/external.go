package telemetry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Telemetry of a cluster mongobench did not deploy (mode External): the
// processes are not known from a topology, they are discovered through the
// monitor connection string, and each is then sampled alone, over a
// direct connection with that string's credentials and TLS settings.

// Roles of discovered processes, spelled as the API's ProcessRole values.
const (
	RoleStandalone   = "standalone"
	RoleMember       = "member"
	RoleShard        = "shard"
	RoleConfigServer = "configsvr"
	RoleMongos       = "mongos"
)

// DiscoveredHost is one process of an external cluster.
type DiscoveredHost struct {
	Role string
	Host string // host:port, as the cluster names it
}

// Discovery is what Discover found, and what it could not read (a
// cluster's clusterMonitor user may lack getShardMap, for example).
type Discovery struct {
	Hosts       []DiscoveredHost
	Unavailable []string
}

// DiscoveryRunner is what Discover needs of a client: one command on the
// admin database. Tests script it.
type DiscoveryRunner func(ctx context.Context, cmd bson.D) (bson.Raw, error)

// Discover lists every process the client reaches, as a careful operator
// would find them:
//
//   - a standalone mongod: the URI's host;
//   - a replica set: hello's hosts and passives (data-bearing members;
//     arbiters hold no data and are left out);
//   - a sharded cluster (hello.msg "isdbgrid"): the URI's hosts, which are
//     mongos; every shard's members from listShards' host strings
//     ("<set>/<host:port>,..."); the config servers from getShardMap's
//     map.config, the same "<set>/<hosts>" form (MongoDB manual,
//     getShardMap; it needs the admin database).
//
// uriHosts are the connection string's hosts after SRV resolution
// (options.ClientOptions.Hosts).
func Discover(ctx context.Context, run DiscoveryRunner, uriHosts []string, timeout time.Duration) (Discovery, error) {
	var d Discovery
	call := func(cmd bson.D) (bson.Raw, error) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return run(cctx, cmd)
	}
	hello, err := call(bson.D{{Key: "hello", Value: 1}})
	if err != nil {
		return d, fmt.Errorf("hello: %w", err)
	}
	add := func(role string, hosts ...string) {
		for _, h := range hosts {
			if h != "" && !slices.ContainsFunc(d.Hosts, func(x DiscoveredHost) bool { return x.Host == h }) {
				d.Hosts = append(d.Hosts, DiscoveredHost{Role: role, Host: h})
			}
		}
	}
	msg, _ := hello.Lookup("msg").StringValueOK()
	setName, _ := hello.Lookup("setName").StringValueOK()
	switch {
	case msg == "isdbgrid":
		add(RoleMongos, uriHosts...)
		if reply, err := call(bson.D{{Key: "listShards", Value: 1}}); err != nil {
			d.Unavailable = append(d.Unavailable, "listShards: "+err.Error())
		} else {
			shards, _ := reply.Lookup("shards").ArrayOK()
			vals, _ := shards.Values()
			for _, v := range vals {
				doc, ok := v.DocumentOK()
				if !ok {
					continue
				}
				host, _ := doc.Lookup("host").StringValueOK()
				add(RoleShard, setHosts(host)...)
			}
		}
		if reply, err := call(bson.D{{Key: "getShardMap", Value: 1}}); err != nil {
			d.Unavailable = append(d.Unavailable, "getShardMap (the config servers): "+err.Error())
		} else if cfg, ok := reply.Lookup("map", "config").StringValueOK(); ok {
			add(RoleConfigServer, setHosts(cfg)...)
		} else {
			d.Unavailable = append(d.Unavailable, "getShardMap: no map.config")
		}
	case setName != "":
		add(RoleMember, stringArray(hello, "hosts")...)
		add(RoleMember, stringArray(hello, "passives")...)
	default:
		add(RoleStandalone, uriHosts...)
	}
	return d, nil
}

// setHosts are the hosts of a "<set>/<host:port>,<host:port>" string (or
// a bare host list).
func setHosts(s string) []string {
	if _, after, ok := strings.Cut(s, "/"); ok {
		s = after
	}
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func stringArray(doc bson.Raw, key string) []string {
	arr, ok := doc.Lookup(key).ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	var out []string
	for _, v := range vals {
		if s, ok := v.StringValueOK(); ok {
			out = append(out, s)
		}
	}
	return out
}

// DirectOptions are the client options of one discovered host: the
// monitor string's credential and TLS configuration (already merged with
// any TLS files) and app name, a direct connection to host alone, and the
// sampler's short timeouts. Nothing else of the string is carried over: its
// replicaSet or SRV name would make the driver discover the set again.
func DirectOptions(base *options.ClientOptions, host string, timeout time.Duration) *options.ClientOptions {
	o := options.Client().SetHosts([]string{host}).SetDirect(true).SetAppName("mongobench-telemetry").
		SetMaxPoolSize(2).SetConnectTimeout(timeout).SetServerSelectionTimeout(timeout).SetTimeout(0).
		SetRetryWrites(false)
	if base.Auth != nil {
		o.SetAuth(*base.Auth)
	}
	if base.TLSConfig != nil {
		o.SetTLSConfig(base.TLSConfig)
	}
	return o
}

// ClientRunner runs discovery commands through a client (the monitor
// string's, not direct: it follows the set's primary or a mongos).
func ClientRunner(c *mongo.Client) DiscoveryRunner {
	return func(ctx context.Context, cmd bson.D) (bson.Raw, error) {
		return c.Database("admin").RunCommand(ctx, cmd).Raw() //nolint:wrapcheck // Discover names the command
	}
}
