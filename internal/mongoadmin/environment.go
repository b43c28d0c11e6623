package mongoadmin

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// buildInfo is what the report keeps of buildInfo: version is the release
// ("8.0.16"), gitVersion the commit hash it was built from
// (VersionInfoInterface::appendBuildInfo in src/mongo/util/version.cpp,
// mongodb/mongo).
type buildInfo struct {
	version, gitVersion, allocator, openssl string
}

// serverEnvironment asks each process, once and without retries, for its
// options (getCmdLineOpts) and startup warnings (getLog startupWarnings),
// and a data-bearing mongod for the featureCompatibilityVersion and its
// storage engine (serverStatus). It never
// fails the bootstrap: what a server does not answer is recorded as
// unavailable (mongos has no FCV; mongo-java-server knows none of these).
func (r *runner) serverEnvironment(ctx context.Context, bi buildInfo, dataHost string, hosts []string) *results.ServerEnvironment {
	env := &results.ServerEnvironment{Version: bi.version, GitVersion: bi.gitVersion, Allocator: bi.allocator, OpenSSL: bi.openssl}
	for _, h := range hosts {
		pe := results.ProcessEnvironment{Host: h}
		uri := r.endpoint(h)
		if reply, err := r.run(ctx, uri, adminDB, simpleCommand("getCmdLineOpts")); err != nil {
			pe.Unavailable = append(pe.Unavailable, "getCmdLineOpts: "+describe(err))
		} else if parsed, ok := reply.Lookup("parsed").DocumentOK(); ok {
			pe.Options = clip(parsed.String(), results.MaxOptionsBytes)
		} else {
			pe.Unavailable = append(pe.Unavailable, "getCmdLineOpts: no parsed options")
		}
		if reply, err := r.run(ctx, uri, adminDB, bson.D{{Key: "getLog", Value: "startupWarnings"}}); err != nil {
			pe.Unavailable = append(pe.Unavailable, "getLog startupWarnings: "+describe(err))
		} else {
			pe.StartupWarnings = logLines(reply)
		}
		if h == dataHost {
			cmd := bson.D{{Key: "getParameter", Value: 1}, {Key: "featureCompatibilityVersion", Value: 1}}
			if reply, err := r.run(ctx, uri, adminDB, cmd); err != nil {
				pe.Unavailable = append(pe.Unavailable, "featureCompatibilityVersion: "+describe(err))
			} else if v, ok := reply.Lookup("featureCompatibilityVersion", "version").StringValueOK(); ok {
				env.FeatureCompatibilityVersion = v
			} else {
				pe.Unavailable = append(pe.Unavailable, "featureCompatibilityVersion: not in the reply")
			}
			// Only the storageEngine section: serverStatus is otherwise large.
			cmd = bson.D{{Key: "serverStatus", Value: 1}, {Key: "repl", Value: 0}, {Key: "metrics", Value: 0}, {Key: "locks", Value: 0}}
			if reply, err := r.run(ctx, uri, adminDB, cmd); err != nil {
				pe.Unavailable = append(pe.Unavailable, "storageEngine: "+describe(err))
			} else if v, ok := reply.Lookup("storageEngine", "name").StringValueOK(); ok {
				env.StorageEngine = v
			} else {
				pe.Unavailable = append(pe.Unavailable, "storageEngine: not in serverStatus")
			}
		}
		env.Processes = append(env.Processes, pe)
	}
	return env
}

// logLines are getLog's lines, bounded in number and size.
func logLines(reply bson.Raw) []string {
	arr, ok := reply.Lookup("log").ArrayOK()
	if !ok {
		return nil
	}
	vals, err := arr.Values()
	if err != nil {
		return nil
	}
	var out []string
	for _, v := range vals {
		if len(out) == results.MaxStartupWarnings {
			out = append(out, fmt.Sprintf("(%d more lines)", len(vals)-results.MaxStartupWarnings))
			break
		}
		if s, ok := v.StringValueOK(); ok {
			out = append(out, clip(s, results.MaxStartupWarningBytes))
		}
	}
	return out
}

// clip bounds s to n bytes, marking a cut with "…" (n counts it).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
