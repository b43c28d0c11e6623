package mongoadmin

import (
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// memberStateRemoved is replSetGetStatus's myState of a member that is not
// in its set's config.
const memberStateRemoved = 10

// initiateReplicaSet makes rs a replica set of its members, unless it is
// one already, and waits until a one-member set's member is a writable
// primary, or a set of several has one PRIMARY and every other member
// SECONDARY (waitMembers). It returns the members' states.
func (r *runner) initiateReplicaSet(ctx context.Context, rs ReplicaSet, configsvr bool) ([]results.MemberState, error) {
	if err := r.initiate(ctx, rs, configsvr); err != nil {
		return nil, err
	}
	if len(rs.Others) > 0 {
		members, _, err := r.waitMembers(ctx, rs)
		return members, err
	}
	if err := r.waitPrimary(ctx, rs); err != nil {
		return nil, err
	}
	return []results.MemberState{{ReplicaSet: rs.Name, Host: rs.Host, State: "PRIMARY"}}, nil
}

// initiate sends replSetInitiate with every member of rs to rs.Host, unless
// rs.Host is initiated already. It does not wait for an election.
func (r *runner) initiate(ctx context.Context, rs ReplicaSet, configsvr bool) error {
	step := "initiate replica set " + rs.Name
	return r.retry(ctx, step, func(ctx context.Context) error {
		status, err := r.runAdmin(ctx, rs.Host, simpleCommand("replSetGetStatus"))
		switch {
		case err == nil:
			if err := checkStatus(status, rs); err != nil {
				return err
			}
			r.log.Info("replica set already initiated", "replSet", rs.Name, "host", rs.Host)
			return nil
		case hasCode(err, codeNoReplicationEnabled):
			return withHint(err, initiateHint(err, rs))
		case !hasCode(err, codeNotYetInitialized):
			return err
		}

		_, err = r.runAdmin(ctx, rs.Host, initiateCommand(rs, configsvr))
		switch {
		case err == nil:
			r.log.Info("replica set initiated", "replSet", rs.Name, "host", rs.Host, "configsvr", configsvr)
		case hasCode(err, codeAlreadyInitialized):
			// A previous attempt got through although its reply was lost.
			r.log.Info("replica set already initiated", "replSet", rs.Name, "host", rs.Host)
		case isTransient(err):
			return err
		case hasCode(err, codeNodeNotFound) && len(rs.Others) > 0:
			// The quorum check of a multi-member initiate: "replSetInitiate
			// quorum check failed because not all proposed set members
			// responded affirmatively" (74 NodeNotFound, mongodb/mongo
			// src/mongo/db/repl/check_quorum_for_config_change.cpp). Another
			// member's name does not resolve or it does not listen yet:
			// a pod still starting, so wait for it.
			return passingError{err: withHint(err, initiateHint(err, rs))}
		default:
			return withHint(err, initiateHint(err, rs))
		}
		return nil
	})
}

// checkStatus rejects an initiated member that cannot serve as rs: a
// different set name, or a member its own config does not list (initiated
// earlier under another host name).
func checkStatus(status bson.Raw, rs ReplicaSet) error {
	var s struct {
		Set     string `bson:"set"`
		MyState int    `bson:"myState"`
	}
	if err := bson.Unmarshal(status, &s); err != nil {
		return fmt.Errorf("replSetGetStatus on %s: decode: %w", rs.Host, err)
	}
	if s.Set != rs.Name {
		return fmt.Errorf("%s is a member of replica set %q, want %q (check --replSet)", rs.Host, s.Set, rs.Name)
	}
	if s.MyState == memberStateRemoved {
		return fmt.Errorf("%s is REMOVED from replica set %s: its config does not list this member "+
			"(initiated earlier with another host name?); it cannot be fixed by bootstrap, recreate its data", rs.Host, rs.Name)
	}
	return nil
}

// waitPrimary polls hello until the member is a writable primary, then
// checks that it knows itself by rs.Host: addShard "name/host" and mongos
// --configdb are refused unless the host is in the set's hello.hosts.
func (r *runner) waitPrimary(ctx context.Context, rs ReplicaSet) error {
	err := r.retry(ctx, "wait for replica set "+rs.Name+" primary", func(ctx context.Context) error {
		h, err := r.hello(ctx, DirectURI(rs.Host))
		if err != nil {
			return err
		}
		if !h.writable() {
			return notYet("%s is not a writable primary yet", rs.Host)
		}
		if h.SetName != rs.Name {
			return fmt.Errorf("%s reports replica set %q, want %q", rs.Host, h.SetName, rs.Name)
		}
		if !containsHost(h.Hosts, rs.Host) {
			return fmt.Errorf("replica set %s lists hosts %v, not %s: it was initiated with another host name, "+
				"and addShard %s/%s would be refused", rs.Name, h.Hosts, rs.Host, rs.Name, rs.Host)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.log.Info("replica set primary", "replSet", rs.Name, "host", rs.Host)
	return nil
}

// containsHost compares host names without case, as DNS does.
func containsHost(hosts []string, host string) bool {
	for _, h := range hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}
