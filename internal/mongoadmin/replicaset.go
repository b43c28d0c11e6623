package mongoadmin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// Member states of replSetGetStatus (members[].state; mongodb/mongo
// src/mongo/db/repl/member_state.h: RS_PRIMARY = 1, RS_SECONDARY = 2; the
// others, STARTUP 0, RECOVERING 3, STARTUP2 5, UNKNOWN 6, DOWN 8, ..., are
// on the way or wrong).
const (
	memberStatePrimary   = 1
	memberStateSecondary = 2
)

// maxMembers is the most members Validate accepts: the API's bound (7),
// also the most voting members a replica set may have (mongodb/mongo
// src/mongo/db/repl/repl_set_config.h, kMaxVotingMembers = 7), every
// member here voting.
const maxMembers = 7

// validate checks a ReplicaSet topology's set: a name, every member a
// host:port, no member twice, at most maxMembers.
func (rs ReplicaSet) validate() error {
	var errs []error
	if rs.Name == "" || strings.ContainsAny(rs.Name, "/,$ .") {
		errs = append(errs, fmt.Errorf("replica set name %q: want a non-empty name without / , $ . or spaces", rs.Name))
	}
	return errors.Join(append(errs, rs.validateMembers())...)
}

// validateMembers checks a set's members: each a host:port, none twice,
// at most maxMembers.
func (rs ReplicaSet) validateMembers() error {
	var errs []error
	members := rs.Members()
	if len(members) > maxMembers {
		errs = append(errs, fmt.Errorf("replica set %s has %d members, at most %d vote", rs.Name, len(members), maxMembers))
	}
	seen := map[string]bool{}
	for _, h := range members {
		errs = append(errs, checkHost("replica set "+rs.Name, h))
		if seen[strings.ToLower(h)] {
			errs = append(errs, fmt.Errorf("replica set %s lists member %s twice", rs.Name, h))
		}
		seen[strings.ToLower(h)] = true
	}
	return errors.Join(errs...)
}

// bootstrapReplicaSet initiates the set with all its members, waits for one
// PRIMARY and every other member SECONDARY, and creates the collection on
// the primary. Run again, it finds the set initiated (replSetGetStatus
// answers) and only waits and checks.
func (r *runner) bootstrapReplicaSet(ctx context.Context, topo Topology) (*results.Bootstrap, error) {
	rs := topo.ReplicaSet
	r.log.Info("bootstrapping replica set", "replSet", rs.Name, "members", len(rs.Members()), "namespace", topo.Namespace)
	if err := r.initiate(ctx, rs, false); err != nil {
		return nil, err
	}
	members, primary, err := r.waitMembers(ctx, rs)
	if err != nil {
		return nil, err
	}
	uri := DirectURI(primary)
	bi, err := r.buildInfo(ctx, uri)
	if err != nil {
		return nil, err
	}
	// On the primary: a secondary refuses the create (10107
	// NotWritablePrimary), which the retry would wait out in vain.
	if err := r.ensureCollection(ctx, uri, topo.Namespace); err != nil {
		return nil, err
	}
	// On the primary too; the members replicate the users.
	if err := r.ensureUsers(ctx, "replica set "+rs.Name, primary, topo.Users.entryUsers()); err != nil {
		return nil, err
	}
	r.log.Info("bootstrap done", "serverVersion", bi.version, "namespace", topo.Namespace, "primary", primary)
	return &results.Bootstrap{ServerVersion: bi.version, Namespace: topo.Namespace, Members: members,
		Server: r.serverEnvironment(ctx, bi, primary, rs.Members())}, nil
}

// statusMember is one entry of replSetGetStatus's members.
type statusMember struct {
	ID       int    `bson:"_id"`
	Name     string `bson:"name"`
	State    int    `bson:"state"`
	StateStr string `bson:"stateStr"`
}

// waitMembers polls replSetGetStatus on rs.Host until the set's config
// lists exactly rs's members and one of them is PRIMARY and every other
// SECONDARY. replSetGetStatus answers from rs.Host's view, built from
// heartbeats (a few seconds old at most): a member that has not received
// the config yet shows as STARTUP, one in initial sync as STARTUP2, one not
// reached as UNKNOWN or DOWN; rs.Host itself is SECONDARY until an
// election makes a PRIMARY. It returns the members in _id order and the
// primary's host.
func (r *runner) waitMembers(ctx context.Context, rs ReplicaSet) ([]results.MemberState, string, error) {
	var members []results.MemberState
	var primary string
	err := r.retry(ctx, "wait for replica set "+rs.Name+" members", func(ctx context.Context) error {
		reply, err := r.runAdmin(ctx, rs.Host, simpleCommand("replSetGetStatus"))
		if err != nil {
			return err
		}
		if err := checkStatus(reply, rs); err != nil {
			return err
		}
		var status struct {
			Members []statusMember `bson:"members"`
		}
		if err := bson.Unmarshal(reply, &status); err != nil {
			return fmt.Errorf("replSetGetStatus on %s: decode: %w", rs.Host, err)
		}
		if err := checkMembers(rs, status.Members); err != nil {
			return err
		}
		members, primary = nil, ""
		var primaries int
		var waiting []string
		for i, m := range status.Members {
			host := rs.Members()[i]
			members = append(members, results.MemberState{ReplicaSet: rs.Name, Host: host, State: m.StateStr})
			switch m.State {
			case memberStatePrimary:
				primaries++
				primary = host
			case memberStateSecondary:
			default:
				waiting = append(waiting, host+" "+m.StateStr)
			}
		}
		if primaries != 1 || len(waiting) > 0 {
			return notYet("replica set %s: %d primary, members not yet SECONDARY: %s", rs.Name, primaries, strings.Join(waiting, ", "))
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	r.log.Info("replica set ready", "replSet", rs.Name, "primary", primary, "members", len(members))
	return members, primary, nil
}

// checkMembers rejects a set whose config is not rs's: other members, or
// the same in another order (initiated earlier by something else). It
// cannot be fixed by bootstrap: replSetReconfig is not ours to send.
func checkMembers(rs ReplicaSet, got []statusMember) error {
	want := rs.Members()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].ID == i && strings.EqualFold(got[i].Name, want[i])
	}
	if ok {
		return nil
	}
	names := make([]string, len(got))
	for i, m := range got {
		names[i] = fmt.Sprintf("%d=%s", m.ID, m.Name)
	}
	return fmt.Errorf("replica set %s was initiated with members [%s], want %v in that order: "+
		"it cannot be fixed by bootstrap, recreate its data", rs.Name, strings.Join(names, " "), want)
}
