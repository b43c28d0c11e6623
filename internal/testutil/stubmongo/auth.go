package stubmongo

import (
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Access control, as a mongod or mongos started with --auth or --keyFile
// has it (RequireAuth). What is modelled, and where MongoDB says so
// (mongodb/mongo unless stated):
//
//   - SCRAM-SHA-256 over saslStart / saslContinue, the server side of the
//     conversation done by github.com/xdg-go/scram (which the Go driver
//     uses for the client side): payloads are binary, the conversation id
//     is the number the first reply gave, and a reply says done: true
//     after the server-final message when saslStart asked for
//     options.skipEmptyExchange (the driver always does:
//     x/mongo/driver/auth/scram.go scramStartOptions), else only after one
//     more, empty, saslContinue (sasl_scram_server_conversation.h:
//     _totalSteps() is 2 with skipEmptyExchange, else 3).
//   - Any failure in the conversation (unknown user, wrong proof) is
//     18 AuthenticationFailed "Authentication failed.": the server tells
//     the client nothing more (src/mongo/db/auth/sasl_commands.cpp,
//     doSaslStep: "All the client needs to know is that authentication has
//     failed"). A saslContinue with another conversation id is 17
//     ProtocolError "sasl: Mismatched conversation id", one without a
//     conversation 17 "No SASL session state found", one on another
//     database 17 "Attempt to switch database target during SASL
//     authentication." (same file).
//   - The stub's users have SCRAM-SHA-256 credentials only, as a user
//     created with mechanisms: ["SCRAM-SHA-256"] has: a SCRAM-SHA-1
//     conversation fails with 18, as the server's does for such a user or
//     one that does not exist (which is what a driver that found no
//     saslSupportedMechs tries). Any other mechanism is 334
//     MechanismUnavailable "Unsupported mechanism '<m>' on authentication
//     database '<db>'" (SASLServerMechanismRegistry::getServerMechanism,
//     src/mongo/db/auth/sasl_mechanism_registry.cpp).
//   - hello (or isMaster) with saslSupportedMechs: "<db>.<user>" lists the
//     user's mechanisms, ["SCRAM-SHA-256"], and leaves the field out for a
//     user that does not exist (advertiseMechanismNamesForUser, same
//     registry file: UserNotFound returns without it).
//   - speculativeAuthenticate in the handshake is ignored, as servers
//     before 4.4 do: the driver then runs the whole conversation after the
//     handshake (go.mongodb.org/mongo-driver/v2
//     x/mongo/driver/auth/auth.go, authHandshaker.authenticate: no
//     speculative response, so Authenticator.Auth).
//   - Until a connection has authenticated, every command but those that
//     do not require it fails with 13 Unauthorized "Command <name>
//     requires authentication" (src/mongo/db/commands.cpp,
//     checkAuthorizationImplPreParse). Those that do not: hello and
//     isMaster, saslStart and saslContinue, ping and buildInfo (their
//     requiresAuth() is false: src/mongo/db/commands/generic.cpp,
//     src/mongo/db/auth/sasl_commands.cpp).
//
// Authorization is not modelled: an authenticated user may run every
// command, whatever its roles.

// User is an account of a server started with RequireAuth. DB is its
// authentication database (admin for mongobench's users, and for the
// cluster's __system as a client names it).
type User struct {
	DB, Name, Password string
}

// scramIterations is the fewest the driver accepts
// (x/mongo/driver/auth/scram.go: client.WithMinIterations(4096)), so that
// each connection's proof costs the test as little as it can; a real
// server uses more (its scramSHA256IterationCount), which changes nothing
// in the conversation.
const scramIterations = 4096

// Error codes of access control (src/mongo/base/error_codes.yml).
const (
	codeUnauthorized         = 13
	codeProtocolError        = 17
	codeAuthenticationFailed = 18
	codeMechanismUnavailable = 334
)

// mechanism is the one the stub's users have credentials for.
const mechanism = "SCRAM-SHA-256"

// RequireAuth makes the server require authentication, SCRAM-SHA-256, of
// the given users, as a mongod or mongos started with --auth or --keyFile
// does; see the comment above User for what is modelled.
func RequireAuth(users ...User) Option {
	return func(s *Server) {
		a := &authServer{creds: map[string]scram.StoredCredentials{}}
		for _, u := range users {
			c, err := storedCredentials(u)
			if err != nil {
				// Options cannot fail; a user the stub cannot store would
				// make every test of it fail with AuthenticationFailed,
				// which says less than this.
				panic(fmt.Sprintf("stubmongo: user %s.%s: %v", u.DB, u.Name, err))
			}
			a.creds[u.DB+"."+u.Name] = c
		}
		s.auth = a
	}
}

// storedCredentials derives what a server keeps of a user's password: a
// random salt, the iteration count, StoredKey and ServerKey (RFC 5802).
// The password is SASLprepped, as createUser does for SCRAM-SHA-256
// (buildCredentials in src/mongo/db/commands/user_management_commands.cpp:
// icuSaslPrep) and the driver does for its proof.
func storedCredentials(u User) (scram.StoredCredentials, error) {
	client, err := scram.SHA256.NewClient(u.Name, u.Password, "")
	if err != nil {
		return scram.StoredCredentials{}, fmt.Errorf("prepare credentials: %w", err)
	}
	salt := make([]byte, 28)
	if _, err := rand.Read(salt); err != nil {
		return scram.StoredCredentials{}, fmt.Errorf("salt: %w", err)
	}
	c, err := client.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: scramIterations})
	if err != nil {
		return scram.StoredCredentials{}, fmt.Errorf("derive keys: %w", err)
	}
	return c, nil
}

// authServer is a server's access control: its users and what happened.
type authServer struct {
	creds map[string]scram.StoredCredentials // by "db.name"; read-only once started

	mu            sync.Mutex
	authenticated []string // "db.name", one per successful authentication
	refused       []string // command names
	failures      atomic.Int64
}

func (a *authServer) lookup(db string) scram.CredentialLookup {
	return func(name string) (scram.StoredCredentials, error) {
		c, ok := a.creds[db+"."+name]
		if !ok {
			return scram.StoredCredentials{}, errors.New("UserNotFound")
		}
		return c, nil
	}
}

// Authentications returns the users that authenticated, "db.name", one
// entry per successful conversation (each connection of a driver's pool
// authenticates once), in order. Empty without RequireAuth.
func (s *Server) Authentications() []string {
	if s.auth == nil {
		return nil
	}
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	return append([]string(nil), s.auth.authenticated...)
}

// AuthFailures returns the number of conversations that failed with 18
// AuthenticationFailed.
func (s *Server) AuthFailures() int64 {
	if s.auth == nil {
		return 0
	}
	return s.auth.failures.Load()
}

// Refused returns the names of the commands refused with 13 Unauthorized
// because their connection had not authenticated, in order. (A driver
// closing an unauthenticated client sends endSessions, refused too.)
func (s *Server) Refused() []string {
	if s.auth == nil {
		return nil
	}
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	return append([]string(nil), s.auth.refused...)
}

// connAuth is one connection's authentication: the user it authenticated
// as, and the conversation under way.
type connAuth struct {
	user string // "db.name" once authenticated
	conv *scram.ServerConversation
	db   string // the conversation's authentication database
	// skipEmpty is saslStart's options.skipEmptyExchange; finalSent is set
	// once the server-final message went out without done: true.
	skipEmpty, finalSent bool
}

// conversationID is the id every conversation gets: one conversation runs
// per connection at a time (a server before 4.4 numbered them from 1 per
// session, sasl_commands.cpp).
const conversationID = 1

// requiresAuth reports whether a command needs an authenticated
// connection (see the comment at the top of this file).
func requiresAuth(name []byte) bool {
	switch string(name) {
	case "hello", "isMaster", "ismaster", "saslStart", "saslContinue", "ping", "buildInfo", "buildinfo":
		return false
	}
	return true
}

// authCommand answers a command under access control; ok is false when the
// command is to be answered as without it.
func (h *handler) authCommand(name []byte, body bsoncore.Document) (r reply, ok bool) {
	a := h.s.auth
	switch string(name) {
	case "saslStart":
		h.s.counts[KindHandshake].Add(1)
		return h.saslStart(a, body), true
	case "saslContinue":
		h.s.counts[KindHandshake].Add(1)
		return h.saslContinue(a, body), true
	}
	if h.auth.user == "" && requiresAuth(name) {
		a.mu.Lock()
		a.refused = append(a.refused, string(name))
		a.mu.Unlock()
		h.s.counts[KindOther].Add(1)
		return namedErrorReply(codeUnauthorized, "Unauthorized", "Command "+string(name)+" requires authentication"), true
	}
	return reply{}, false
}

func (h *handler) saslStart(a *authServer, body bsoncore.Document) reply {
	db, _ := body.Lookup("$db").StringValueOK()
	mech, _ := body.Lookup("mechanism").StringValueOK()
	h.auth.conv, h.auth.finalSent = nil, false
	if mech == "SCRAM-SHA-1" {
		return h.authFailed(a)
	}
	if mech != mechanism {
		return namedErrorReply(codeMechanismUnavailable, "MechanismUnavailable",
			fmt.Sprintf("Unsupported mechanism '%s' on authentication database '%s'", mech, db))
	}
	server, err := scram.SHA256.NewServer(a.lookup(db))
	if err != nil {
		return h.authFailed(a)
	}
	conv := server.NewConversation()
	_, payload, _ := body.Lookup("payload").BinaryOK()
	s1, err := conv.Step(string(payload))
	if err != nil {
		return h.authFailed(a)
	}
	h.auth.conv, h.auth.db = conv, db
	h.auth.skipEmpty, _ = body.Lookup("options", "skipEmptyExchange").BooleanOK()
	return saslReply(false, s1)
}

func (h *handler) saslContinue(a *authServer, body bsoncore.Document) reply {
	db, _ := body.Lookup("$db").StringValueOK()
	id, _ := body.Lookup("conversationId").AsInt64OK()
	switch {
	case h.auth.conv == nil:
		return namedErrorReply(codeProtocolError, "ProtocolError", "No SASL session state found")
	case db != h.auth.db:
		h.auth.conv = nil
		return namedErrorReply(codeProtocolError, "ProtocolError", "Attempt to switch database target during SASL authentication.")
	case id != conversationID:
		h.auth.conv = nil
		return namedErrorReply(codeProtocolError, "ProtocolError", "sasl: Mismatched conversation id")
	}
	if h.auth.finalSent {
		// The empty exchange of a client that did not ask to skip it.
		return h.authenticated(a, "")
	}
	_, payload, _ := body.Lookup("payload").BinaryOK()
	s2, err := h.auth.conv.Step(string(payload))
	if err != nil || !h.auth.conv.Valid() {
		return h.authFailed(a)
	}
	if !h.auth.skipEmpty {
		h.auth.finalSent = true
		return saslReply(false, s2)
	}
	return h.authenticated(a, s2)
}

// authenticated ends a conversation that succeeded.
func (h *handler) authenticated(a *authServer, payload string) reply {
	user := h.auth.db + "." + h.auth.conv.Username()
	h.auth.user, h.auth.conv = user, nil
	a.mu.Lock()
	a.authenticated = append(a.authenticated, user)
	a.mu.Unlock()
	return saslReply(true, payload)
}

// authFailed ends a conversation that failed, telling the client no more
// than a real server does.
func (h *handler) authFailed(a *authServer) reply {
	h.auth.conv = nil
	a.failures.Add(1)
	return namedErrorReply(codeAuthenticationFailed, "AuthenticationFailed", "Authentication failed.")
}

// saslReply is a step of a conversation that goes on (or is done).
func saslReply(done bool, payload string) reply {
	return reply{doc: bsoncore.NewDocumentBuilder().
		AppendInt32("conversationId", conversationID).
		AppendBoolean("done", done).
		AppendBinary("payload", 0, []byte(payload)).
		AppendDouble("ok", 1).Build()}
}

// withSaslSupportedMechs adds the mechanisms of the user a handshake asks
// about (saslSupportedMechs: "db.user") to its hello reply; a user that
// does not exist gets no field.
func (a *authServer) withSaslSupportedMechs(body bsoncore.Document, hello []byte) []byte {
	user, ok := body.Lookup("saslSupportedMechs").StringValueOK()
	if !ok {
		return hello
	}
	if _, known := a.creds[user]; !known {
		return hello
	}
	elems, err := bsoncore.Document(hello).Elements()
	if err != nil {
		return hello
	}
	raw := make([][]byte, 0, len(elems)+1)
	for _, e := range elems {
		raw = append(raw, e)
	}
	raw = append(raw, bsoncore.AppendArrayElement(nil, "saslSupportedMechs",
		bsoncore.NewArrayBuilder().AppendString(mechanism).Build()))
	return bsoncore.BuildDocumentFromElements(nil, raw...)
}

// namedErrorReply is a command's failure with its code name, as servers
// since 3.4 send it.
func namedErrorReply(code int32, name, msg string) reply {
	return reply{doc: bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", msg).
		AppendInt32("code", code).AppendString("codeName", name).Build()}
}
