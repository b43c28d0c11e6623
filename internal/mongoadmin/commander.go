package mongoadmin

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/mongotls"
)

// Commander sends commands to one server (a mongod or a mongos). It is all
// this package needs from a driver, so tests can record and script it.
type Commander interface {
	// RunCommand runs cmd on database db and returns the reply; a reply with
	// ok: 0 is an error that implements mongo.ServerError.
	RunCommand(ctx context.Context, db string, cmd bson.D) (bson.Raw, error)
	// RunCursor runs a command that opens a cursor (find, aggregate,
	// listCollections) on database db and returns every document of the
	// cursor, following it with getMore commands that carry no maxTimeMS:
	// a server refuses maxTimeMS on the getMore of a cursor that is not
	// tailable and awaitData (2 BadValue: src/mongo/db/commands/
	// getmore_cmd.cpp, src/mongo/s/query/cluster_find.cpp in
	// mongodb/mongo), and the driver's RunCommand adds one whenever ctx has
	// a deadline.
	RunCursor(ctx context.Context, db string, cmd bson.D) ([]bson.Raw, error)
	// Close releases the connection.
	Close(ctx context.Context) error
}

// Dialer opens a Commander for a connection string. Bootstrap dials
// DirectURI(host) for every host of the topology; ApplyValidator dials the
// URI it is given. Dialing must not do I/O: errors from an unreachable server
// belong to the commands, which are retried.
type Dialer func(uri string) (Commander, error)

// DirectURI is the connection string of one server, used as is: a replica
// set member that is not initiated yet cannot be selected otherwise. It
// says retryWrites=false so that no connection of mongobench relies on the
// driver's default (true, go.mongodb.org/mongo-driver/v2 mongo/client.go);
// the admin commands go through RunCommand, which never makes a write
// retryable (x/mongo/driver/operation.go: its Operation has no Type Write
// and no RetryMode), so this changes nothing on the wire today.
func DirectURI(hostPort string) string {
	return "mongodb://" + hostPort + "/?directConnection=true&retryWrites=false"
}

// Timeouts of the driver's own that stay below Options.CallTimeout, so a
// server that is not up yet shows as a server-selection error (retried)
// rather than as the call's deadline.
const (
	driverConnectTimeout         = 10 * time.Second
	driverServerSelectionTimeout = 10 * time.Second
)

// DialDriver is the Dialer over go.mongodb.org/mongo-driver/v2. Options in
// the URI override its timeouts.
func DialDriver(uri string) (Commander, error) { return dialDriver(uri, nil) }

// DialDriverWithCredential is DialDriver with every connection
// authenticated as cred (options.ClientOptions.SetAuth, applied after the
// URI: the credential never travels in a connection string, which lands
// in logs and messages). Leave cred.AuthMechanism empty to let the driver
// pick SCRAM-SHA-256 from the server's saslSupportedMechs
// (x/mongo/driver/auth/default.go), and set cred.AuthSource, else the
// driver authenticates against the URI's database.
func DialDriverWithCredential(cred options.Credential) Dialer {
	return func(uri string) (Commander, error) { return dialDriver(uri, &cred) }
}

// DialDriverWith is DialDriver with a credential (nil: none beyond the
// URI's) and a TLS configuration merged into the URI's
// (mongotls.Apply; nil: the URI's alone), for an external cluster whose
// Secrets hold a CA or a client certificate.
func DialDriverWith(cred *options.Credential, tlsCfg *tls.Config) Dialer {
	return func(uri string) (Commander, error) { return dialDriverTLS(uri, cred, tlsCfg) }
}

func dialDriver(uri string, cred *options.Credential) (Commander, error) {
	return dialDriverTLS(uri, cred, nil)
}

func dialDriverTLS(uri string, cred *options.Credential, tlsCfg *tls.Config) (Commander, error) {
	opts := options.Client().
		SetAppName("mongobench-admin").
		SetConnectTimeout(driverConnectTimeout).
		SetServerSelectionTimeout(driverServerSelectionTimeout).
		ApplyURI(uri)
	if cred != nil {
		opts.SetAuth(*cred)
	}
	mongotls.Apply(opts, tlsCfg)
	// v2: no I/O, no context; but a mongodb+srv:// string is resolved
	// here (ApplyURI).
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %s", redactURI(uri), scrubUserInfo(err.Error(), uri))
	}
	return driverCommander{client: client}, nil
}

type driverCommander struct{ client *mongo.Client }

func (d driverCommander) RunCommand(ctx context.Context, db string, cmd bson.D) (bson.Raw, error) {
	// runner.run wraps the error with the command and the server.
	return d.client.Database(db).RunCommand(ctx, cmd).Raw() //nolint:wrapcheck // see above
}

// getMoreBatchSize is the batch size of a cursor's getMores: the documents
// read here (config.chunks, config.collections, listCollections) are small.
const getMoreBatchSize = 1000

// RunCursor reads the cursor through the driver's own cursor, whose
// getMores omit the maxTimeMS a deadline adds to other commands
// (x/mongo/driver/batch_cursor.go, getMore: "OmitMaxTimeMS: true"). The
// first command does get one, as any RunCommand: find and aggregate accept
// it.
func (d driverCommander) RunCursor(ctx context.Context, db string, cmd bson.D) ([]bson.Raw, error) {
	cur, err := d.client.Database(db).RunCommandCursor(ctx, cmd)
	if err != nil {
		return nil, err //nolint:wrapcheck // runner.cursorAll wraps it with the command and the server
	}
	// getMore's batchSize is optional on a real server; mongo-java-server,
	// which the tests use, refuses a getMore without one ("Illegal number
	// to return: 0").
	cur.SetBatchSize(getMoreBatchSize)
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil { // All closes the cursor
		return nil, fmt.Errorf("getMore: %w", err)
	}
	return docs, nil
}

func (d driverCommander) Close(ctx context.Context) error {
	if err := d.client.Disconnect(ctx); err != nil {
		return fmt.Errorf("disconnect: %w", err)
	}
	return nil
}

// redactURI returns the hosts of a connection string, for messages: the URI
// itself may hold a password.
func redactURI(uri string) string {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return "(connection string)"
	}
	hosts, _, _ := strings.Cut(rest, "/")
	hosts, _, _ = strings.Cut(hosts, "?")
	if i := strings.LastIndex(hosts, "@"); i >= 0 {
		hosts = hosts[i+1:]
	}
	return hosts
}

// scrubUserInfo keeps a driver's parse error from showing the connection
// string's user information: the connstring parser quotes option values
// and hosts, and for a user name or password that does not unescape it
// wraps url.PathUnescape's error, which quotes the offending "%xx"
// (x/mongo/driver/connstring/connstring.go: "invalid password: %w").
// Such a message is replaced whole; the user name and password, escaped
// or not, are replaced wherever else they appear.
func scrubUserInfo(msg, uri string) string {
	if strings.Contains(msg, "invalid password") || strings.Contains(msg, "invalid username") {
		return "the connection string's user information does not unescape (not shown)"
	}
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return msg
	}
	hosts, _, _ := strings.Cut(rest, "/")
	at := strings.LastIndex(hosts, "@")
	if at < 0 {
		return msg
	}
	user, password, _ := strings.Cut(hosts[:at], ":")
	for _, s := range []string{password, user} {
		if s == "" {
			continue
		}
		msg = strings.ReplaceAll(msg, s, "xxxxx")
		if u, err := url.PathUnescape(s); err == nil && u != "" {
			msg = strings.ReplaceAll(msg, u, "xxxxx")
		}
	}
	return msg
}
