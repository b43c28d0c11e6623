package mongoadmin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Roles of the users Bootstrap creates: built-in roles, which exist only
// on the admin database (MongoDB manual, Built-In Roles: "MongoDB provides
// all other built-in roles only on the admin database").
const (
	// RoleRoot is the admin user's: every privilege on every non-system
	// collection and the cluster (the load, run, grow, collmod and
	// validator Jobs create collections, indexes, validators and write).
	RoleRoot = "root"
	// RoleClusterMonitor is the telemetry user's. It grants, on the
	// cluster, serverStatus and replSetGetStatus (and listShards,
	// getCmdLineOpts, getLog, getParameter...), and on every non-system
	// collection of every database collStats and dbStats
	// (src/mongo/db/auth/builtin_roles.yml in mongodb/mongo, clusterMonitor:
	// matchType cluster and any_normal). That is all internal/telemetry
	// runs: serverStatus and, on a primary, replSetGetStatus on every
	// process; $collStats with storageStats, whose only privilege is
	// collStats on the namespace (DocumentSourceCollStats::LiteParsed::
	// requiredPrivileges, src/mongo/db/pipeline/document_source_coll_stats.h),
	// or the collStats command on a server without the stage.
	RoleClusterMonitor = "clusterMonitor"
	// RoleClusterManager is the admin user's on each shard, where loader 0
	// sends replSetStepDown for a disruption of that shard (spec.phases[].
	// disruptions[].target): the command needs the replSetStateChange
	// action on the cluster, which clusterManager grants (MongoDB manual,
	// Built-In Roles, clusterManager; replSetStepDown, Access Control) and
	// clusterMonitor does not. From 8.0 on, replSetStepDown, hello and ping
	// are among the commands that may still run directly on a shard
	// (MongoDB manual, Sharded Node Direct Commands).
	RoleClusterManager = "clusterManager"
)

// codeUserAlreadyExists is createUser's answer for a user that exists:
// 51003 "User \"<name>@<db>\" already exists". It has no name in
// src/mongo/base/error_codes.yml; insertPrivilegeDocument returns it when
// the insert into admin.system.users is a duplicate key
// (src/mongo/db/commands/user_management_commands.cpp, mongodb/mongo).
const codeUserAlreadyExists = 51003

// User is an account Bootstrap creates in the admin database. Its String
// (and so %v, %+v and the log) shows the name only: the password must not
// reach a log, an error, an event or a status.
type User struct {
	Name     string
	Password string
}

// String is the user's name.
func (u User) String() string { return u.Name }

// GoString is the user's name, for %#v.
func (u User) GoString() string { return fmt.Sprintf("mongoadmin.User{Name: %q}", u.Name) }

// LogValue is the user's name, for log/slog.
func (u User) LogValue() slog.Value { return slog.StringValue(u.Name) }

// MarshalJSON is the user's name, for encoding/json (and slog's JSON
// handler, which marshals what it does not know).
func (u User) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(u.Name)
	if err != nil {
		return nil, fmt.Errorf("user name: %w", err)
	}
	return b, nil
}

// Users are the accounts of a topology with access control (a run with
// security.auth): Bootstrap creates them once the collection exists, and
// each one only if it does not exist yet. A zero User is not created.
type Users struct {
	// Admin (RoleRoot) is created on the entry point: the standalone, the
	// replica set's primary, or mongos, which stores it on the config
	// servers for the whole cluster. In a sharded cluster it is created
	// on each shard's primary too, as RoleClusterManager only.
	Admin User
	// Monitor (RoleClusterMonitor) is created on the entry point too and,
	// in a sharded cluster, on each shard's primary as well: telemetry
	// samples every process alone, and a shard does not know the users
	// created through mongos. "MongoDB stores users that are created
	// through a mongos in the admin database of the config servers ...
	// shard local users are independent from the users added to the
	// sharded cluster through a mongos" (MongoDB manual, List Users in
	// Self-Managed Deployments). The config server knows them: it is
	// where they are. From 8.0 on, createUser, serverStatus and
	// replSetGetStatus are among the commands that may still run directly
	// on a shard (MongoDB manual, Sharded Node Direct Commands).
	Monitor User
}

// LogValue is the users' names, for log/slog.
func (u Users) LogValue() slog.Value {
	return slog.GroupValue(slog.String("admin", u.Admin.Name), slog.String("monitor", u.Monitor.Name))
}

func (u Users) empty() bool { return u.Admin == User{} && u.Monitor == User{} }

// validate checks that each user to create has a name and a password, and
// that the two are different users.
func (u Users) validate() error {
	var errs []error
	for _, c := range []struct {
		what string
		user User
	}{{"admin", u.Admin}, {"monitor", u.Monitor}} {
		if c.user == (User{}) {
			continue
		}
		if c.user.Name == "" || c.user.Password == "" {
			errs = append(errs, fmt.Errorf("the %s user needs a name and a password", c.what))
		}
		if strings.ContainsRune(c.user.Name, 0) {
			errs = append(errs, fmt.Errorf("the %s user's name %q contains a NUL character", c.what, c.user.Name))
		}
	}
	if u.Admin.Name != "" && u.Admin.Name == u.Monitor.Name {
		errs = append(errs, fmt.Errorf("the admin and monitor users are both named %q", u.Admin.Name))
	}
	return errors.Join(errs...)
}

// roleUser is a user to create with its role.
type roleUser struct {
	user User
	role string
}

// entryUsers are the users created on the entry point.
func (u Users) entryUsers() []roleUser {
	var out []roleUser
	if u.Admin != (User{}) {
		out = append(out, roleUser{u.Admin, RoleRoot})
	}
	if u.Monitor != (User{}) {
		out = append(out, roleUser{u.Monitor, RoleClusterMonitor})
	}
	return out
}

// shardUsers are the users created on each shard: the admin user as
// clusterManager (loader 0 steps a shard down as it; nothing reads or
// writes a shard's data directly) and the monitor user.
func (u Users) shardUsers() []roleUser {
	var out []roleUser
	if u.Admin != (User{}) {
		out = append(out, roleUser{u.Admin, RoleClusterManager})
	}
	if u.Monitor != (User{}) {
		out = append(out, roleUser{u.Monitor, RoleClusterMonitor})
	}
	return out
}

// usersInfoCommand asks for the named users of the admin database
// ({usersInfo: [{user, db}, ...]}: MongoDB manual, usersInfo, "Specify
// Multiple Users").
func usersInfoCommand(users []roleUser) bson.D {
	list := make(bson.A, len(users))
	for i, u := range users {
		list[i] = bson.D{{Key: "user", Value: u.user.Name}, {Key: "db", Value: adminDB}}
	}
	return bson.D{{Key: cmdUsersInfo, Value: list}}
}

// createUserCommand creates u in the admin database, where the command
// runs, with one built-in role of the admin database (MongoDB manual,
// createUser: {createUser, pwd, roles: [{role, db}]}). The default
// mechanisms are kept: SCRAM-SHA-1 and SCRAM-SHA-256, of which the driver
// picks SCRAM-SHA-256 (x/mongo/driver/auth/default.go).
func createUserCommand(u roleUser) bson.D {
	return bson.D{
		{Key: cmdCreateUser, Value: u.user.Name},
		{Key: "pwd", Value: u.user.Password},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: u.role}, {Key: "db", Value: adminDB}}}},
	}
}

// userInfo is one entry of usersInfo's users.
type userInfo struct {
	User  string    `bson:"user"`
	DB    string    `bson:"db"`
	Roles []roleRef `bson:"roles"`
}

// roleRef is a role as usersInfo lists it.
type roleRef struct {
	Role string `bson:"role"`
	DB   string `bson:"db"`
}

// hasRole tells whether the user has role on the admin database.
func (u userInfo) hasRole(role string) bool {
	return slices.Contains(u.Roles, roleRef{Role: role, DB: adminDB})
}

func (u userInfo) roleNames() []string {
	out := make([]string, len(u.Roles))
	for i, r := range u.Roles {
		out[i] = r.Role + "@" + r.DB
	}
	return out
}

// existingUsers reads which of users exist on the server at host.
func (r *runner) existingUsers(ctx context.Context, host string, users []roleUser) (map[string]userInfo, error) {
	reply, err := r.runAdmin(ctx, host, usersInfoCommand(users))
	if err != nil {
		return nil, err
	}
	var info struct {
		Users []userInfo `bson:"users"`
	}
	if err := bson.Unmarshal(reply, &info); err != nil {
		return nil, fmt.Errorf("usersInfo on %s: decode: %w", host, err)
	}
	found := map[string]userInfo{}
	for _, u := range info.Users {
		if u.DB == adminDB {
			found[u.User] = u
		}
	}
	return found, nil
}

// ensureUsers creates on the server at host each of users that usersInfo
// does not list; a user that exists with its role is left as it is (its
// password cannot be read back, and the run's Secret that holds it never
// changes), one with other roles is an error. what names the server in
// the log.
func (r *runner) ensureUsers(ctx context.Context, what, host string, users []roleUser) error {
	if len(users) == 0 {
		return nil
	}
	return r.retry(ctx, "create users on "+what, func(ctx context.Context) error {
		found, err := r.existingUsers(ctx, host, users)
		if err != nil {
			return err
		}
		for _, u := range users {
			if info, ok := found[u.user.Name]; ok {
				if !info.hasRole(u.role) {
					return fmt.Errorf("user %s exists on %s with roles %v, not %s@%s: it was not created by this bootstrap",
						u.user.Name, host, info.roleNames(), u.role, adminDB)
				}
				r.log.Info("user exists", "server", what, "user", u.user, "role", u.role)
				continue
			}
			_, err := r.runAdmin(ctx, host, createUserCommand(u))
			switch {
			case err == nil:
				r.log.Info("user created", "server", what, "user", u.user, "role", u.role)
			case hasCode(err, codeUserAlreadyExists):
				// Created meanwhile, or by an attempt whose reply was lost:
				// the next round's usersInfo checks its role.
				return notYet("user %s exists on %s: checking its role", u.user.Name, host)
			default:
				return err
			}
		}
		return nil
	})
}

// ensureClusterUsers creates the users of a sharded cluster: on mongos,
// and the monitor user on each shard's primary.
func (r *runner) ensureClusterUsers(ctx context.Context, topo Topology) error {
	if topo.Users.empty() {
		return nil
	}
	if err := r.ensureUsers(ctx, "mongos", topo.Mongos, topo.Users.entryUsers()); err != nil {
		return err
	}
	for _, rs := range topo.Shards {
		if len(topo.Users.shardUsers()) == 0 {
			break
		}
		primary, err := r.primaryOf(ctx, rs)
		if err != nil {
			return err
		}
		if err := r.ensureUsers(ctx, "shard "+rs.Name, primary, topo.Users.shardUsers()); err != nil {
			return err
		}
	}
	return nil
}

// primaryOf is the host of rs's primary now: its only member, or the one
// replSetGetStatus says is PRIMARY.
func (r *runner) primaryOf(ctx context.Context, rs ReplicaSet) (string, error) {
	if len(rs.Others) == 0 {
		return rs.Host, nil
	}
	_, primary, err := r.waitMembers(ctx, rs)
	return primary, err
}
