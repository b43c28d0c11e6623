package mongodb

import (
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/ycsb"
)

func props(t *testing.T, kv ...string) *ycsb.Properties {
	t.Helper()
	p, err := ycsb.LoadProperties(nil, kv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigFromProperties(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kv      []string
		url, db string
		batch   int
		upsert  bool
		timeout time.Duration
	}{
		{name: "YCSB defaults", url: DefaultURL, db: "ycsb", batch: 1, timeout: 30 * time.Second},
		{name: "database from the path", kv: []string{"mongodb.url=mongodb://h1:1,h2:2/bench?w=majority"},
			url: "mongodb://h1:1,h2:2/bench?w=majority", db: "bench", batch: 1, timeout: 30 * time.Second},
		{name: "no path: ycsb", kv: []string{"mongodb.url=mongodb://h"}, url: "mongodb://h", db: "ycsb", batch: 1, timeout: 30 * time.Second},
		{name: "admin: ycsb", kv: []string{"mongodb.url=mongodb://h/admin?authSource=admin"},
			url: "mongodb://h/admin?authSource=admin", db: "ycsb", batch: 1, timeout: 30 * time.Second},
		{name: "escaped database", kv: []string{"mongodb.url=mongodb+srv://u:p%40ss@c.example.com/my%2Ddb"},
			url: "mongodb+srv://u:p%40ss@c.example.com/my%2Ddb", db: "my-db", batch: 1, timeout: 30 * time.Second},
		{name: "legacy options added when absent", kv: []string{
			"mongodb.url=mongodb://h/db", "mongodb.writeConcern=majority", "mongodb.readPreference=secondary_preferred",
			"mongodb.maxconnections=64", "batchsize=100", "mongodb.upsert=true", "mongodb.operationtimeout=500ms",
		}, url: "mongodb://h/db?maxPoolSize=64&w=majority&readPreference=secondaryPreferred", db: "db", batch: 100, upsert: true,
			timeout: 500 * time.Millisecond},
		{name: "URL options win (case-insensitive)", kv: []string{
			"mongodb.url=mongodb://h/?W=1&ReadPreference=primary&maxpoolsize=5", "mongodb.writeConcern=unacknowledged",
			"mongodb.readPreference=nearest", "mongodb.maxconnections=64", "mongodb.operationtimeout=2.5",
		}, url: "mongodb://h/?W=1&ReadPreference=primary&maxpoolsize=5", db: "ycsb", batch: 1, timeout: 2500 * time.Millisecond},
		{name: "journaled keeps w", kv: []string{"mongodb.writeConcern=Journaled"},
			url: "mongodb://localhost:27017/ycsb?w=1&journal=true", db: "ycsb", batch: 1, timeout: 30 * time.Second},
		{name: "j counts as journal", kv: []string{"mongodb.url=mongodb://h/?j=false", "mongodb.writeConcern=journaled"},
			url: "mongodb://h/?j=false", db: "ycsb", batch: 1, timeout: 30 * time.Second},
		{name: "query without path", kv: []string{"mongodb.url=mongodb://h?ssl=true", "mongodb.writeConcern=acknowledged"},
			url: "mongodb://h/?ssl=true&w=1", db: "ycsb", batch: 1, timeout: 30 * time.Second},
		{name: "replica_acknowledged", kv: []string{"mongodb.url=mongodb://h/x", "mongodb.writeConcern=replica_acknowledged"},
			url: "mongodb://h/x?w=2", db: "x", batch: 1, timeout: 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ConfigFromProperties(props(t, tc.kv...))
			if err != nil {
				t.Fatal(err)
			}
			if c.URL != tc.url || c.Database != tc.db || c.BatchSize != tc.batch || c.Upsert != tc.upsert || c.OperationTimeout != tc.timeout {
				t.Errorf("got %+v\nwant url %s db %s batch %d upsert %t timeout %v", c, tc.url, tc.db, tc.batch, tc.upsert, tc.timeout)
			}
		})
	}
}

func TestConfigFromPropertiesErrors(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		{[]string{"mongodb.url=http://h"}, "must be of the form"},
		{[]string{"batchsize=0"}, "batchsize: 0 must be at least 1"},
		{[]string{"batchsize=x"}, "batchsize"},
		{[]string{"mongodb.upsert=yes"}, "mongodb.upsert"},
		{[]string{"mongodb.writeConcern=safe"}, `mongodb.writeConcern: "safe" is not one of`},
		{[]string{"mongodb.readPreference=any"}, `mongodb.readPreference: "any" is not one of`},
		{[]string{"mongodb.maxconnections=-1"}, "mongodb.maxconnections"},
		{[]string{"mongodb.operationtimeout=0"}, "must be positive"},
		{[]string{"mongodb.operationtimeout=soon"}, "neither a duration"},
		{[]string{"mongodb.url=mongodb://u:secret@h/%zz"}, `mongodb.url: invalid URL "mongodb://u:xxxxx@h/%zz": error parsing uri: invalid database "%zz"`},
	} {
		_, err := ConfigFromProperties(props(t, tc.kv...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.kv, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%v: the error shows the password: %v", tc.kv, err)
		}
	}
}

// TestConfigRejectsMalformedURLs: what the driver would reject when
// connecting, and hosts without a name, are rejected before connecting,
// naming mongodb.url, with the password hidden.
func TestConfigRejectsMalformedURLs(t *testing.T) {
	for url, want := range map[string]string{
		"mongodb://:27017/ycsb":                                      `mongodb.url: invalid URL "mongodb://:27017/ycsb": host ":27017" has no name`,
		"mongodb://host:notaport/":                                   `mongodb.url: invalid URL "mongodb://host:notaport/": host "host:notaport": port "notaport" is not a number from 1 to 65535`,
		"mongodb://h:0/":                                             `port "0" is not a number from 1 to 65535`,
		"mongodb://":                                                 `mongodb.url: invalid URL "mongodb://": error parsing uri: must have at least 1 host`,
		"mongodb://user:s3cret@:27017/ycsb":                          `mongodb.url: invalid URL "mongodb://user:xxxxx@:27017/ycsb": host ":27017" has no name`,
		"mongodb://user:s3cret@h/?authMechanism=NO":                  `mongodb.url: invalid URL "mongodb://user:xxxxx@h/?authMechanism=NO": error parsing uri: invalid auth mechanism`,
		"mongodb://user:s3/cret@h/":                                  `mongodb.url: invalid URL "mongodb://user:xxxxx@h/": error parsing uri: unescaped slash in password`,
		"mongodb://user:s3cret@h/?w=1&serverSelectionTimeoutMS=soon": `invalid value for "serverSelectionTimeoutMS": "soon"`,
		"mongodb://h/?directConnection=true&srvMaxHosts=1":           "srvMaxHosts",
	} {
		_, err := ConfigFromProperties(props(t, "mongodb.url="+url))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", url, err, want)
		}
		if err != nil && (strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "cret@")) {
			t.Errorf("%s: the error shows the password: %v", url, err)
		}
	}
	for _, url := range []string{"mongodb://h", "mongodb://[::1]:27017/db", "mongodb://h1:1,h2:2/?replicaSet=rs", "mongodb://%2Ftmp%2Fmongodb-27017.sock/db",
		"mongodb://u:p%40ss@h/db?authSource=admin"} {
		if _, err := ConfigFromProperties(props(t, "mongodb.url="+url)); err != nil {
			t.Errorf("%s: %v", url, err)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"mongodb://h/db":                          "mongodb://h/db",
		"mongodb://user@h/db":                     "mongodb://user@h/db",
		"mongodb://user:pw@h1,h2/db?x=1":          "mongodb://user:xxxxx@h1,h2/db?x=1",
		"mongodb+srv://user:p%40w@c.example.com":  "mongodb+srv://user:xxxxx@c.example.com",
		"mongodb://user:pw@h?authSource=a@b":      "mongodb://user:xxxxx@h?authSource=a@b",
		"not a url":                               "not a url",
		"mongodb://user:pw@h/db?readPreference=x": "mongodb://user:xxxxx@h/db?readPreference=x",
		// Malformed passwords are hidden whole.
		"mongodb://u:p@ss@h/": "mongodb://u:xxxxx@h/",
		"mongodb://u:p/ss@h/": "mongodb://u:xxxxx@h/",
		"mongodb://u:p?ss@h/": "mongodb://u:xxxxx@h/",
		// The driver reads "h:27017/?authSource=a" as user info (and rejects
		// it): better hidden than shown.
		"mongodb://h:27017/?authSource=a@b": "mongodb://h:xxxxx@b",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestConfigFromURIExternalProperties: the controller's two properties of
// an External run give the run's own database and spec.driver's options,
// which the user's connection string's own options override.
func TestConfigFromURIExternalProperties(t *testing.T) {
	p, err := ycsb.LoadProperties(nil, []string{
		contract.PropExternalDatabase + "=mongobench_nightly",
		contract.PropExternalURIOptions + "=w=majority&readPreference=primary&retryWrites=false",
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := ConfigFromURI(p, "mongodb://u:pw@db-0.example:27017/admin?readPreference=secondary")
	if err != nil {
		t.Fatal(err)
	}
	if c.Database != "mongobench_nightly" {
		t.Errorf("database %q, want the run's mongobench_nightly", c.Database)
	}
	keys := urlOptionKeys(c.URL)
	for _, k := range []string{"w", "readpreference", "retrywrites"} {
		if !keys[k] {
			t.Errorf("URL options %v lack %s", keys, k)
		}
	}
	if !strings.Contains(c.URL, "readPreference=secondary") || strings.Contains(c.URL, "readPreference=primary") {
		t.Errorf("the user's readPreference must win: %s", c.Shown())
	}
	// Not with mongodb.url: the controller never sends them there.
	q, err := ycsb.LoadProperties(nil, []string{contract.PropMongoDBURL + "=mongodb://h:27017/ycsb", contract.PropExternalDatabase + "=x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConfigFromProperties(q); err == nil || !strings.Contains(err.Error(), contract.PropExternalDatabase) {
		t.Errorf("%s with mongodb.url: %v, want an error naming it", contract.PropExternalDatabase, err)
	}
	bad, err := ycsb.LoadProperties(nil, []string{contract.PropExternalURIOptions + "=novalue"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConfigFromURI(bad, "mongodb://h:27017/"); err == nil {
		t.Error("a malformed option list was accepted")
	}
}
