package loader

import (
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/mongoadmin"
)

// The credentials of a run with security.auth (docs/design/auth.md). The
// users' names and passwords come from the environment, which the Jobs
// fill from the run's Secret (secretKeyRef): a flag would land in the pod
// spec, the run's status and the log. The keyfile is a mounted file whose
// path is --keyfile. Every credential is applied to the driver's options
// (SetAuth), never written into a connection string, which the loader
// prints.

// authSource is where mongobench's users live, and where a client names
// __system (jstests/auth/system_auth_scram_mechs.js in mongodb/mongo
// authenticates it on admin): bootstrap creates the users in the admin
// database (mongoadmin.Users). Set explicitly, since the driver otherwise
// takes the connection string's database (ycsb for the telemetry's
// collection target).
const authSource = "admin"

// userCredential reads a user from the environment variables userVar and
// passVar: nil when neither is set, a usage error when only one is. The
// mechanism is left to the driver, which picks SCRAM-SHA-256 when the
// server lists it for the user in hello's saslSupportedMechs, as MongoDB
// does for a user createUser made with its default mechanisms
// (x/mongo/driver/auth/default.go in go.mongodb.org/mongo-driver/v2).
func userCredential(getenv func(string) string, userVar, passVar string) (*options.Credential, error) {
	if getenv == nil { // an Env without one: an empty environment
		return nil, nil
	}
	user, password, ok, err := contract.Credential(getenv, userVar, passVar)
	if err != nil {
		return nil, usageError{err}
	}
	if !ok {
		return nil, nil
	}
	return &options.Credential{AuthSource: authSource, Username: user, Password: password}, nil
}

// adminCredential is the admin user (role root) that load, run, grow and
// collmod connect as: contract.EnvUsername and contract.EnvPassword.
func adminCredential(getenv func(string) string) (*options.Credential, error) {
	return userCredential(getenv, contract.EnvUsername, contract.EnvPassword)
}

// monitorCredential is the telemetry user (role clusterMonitor):
// contract.EnvMonitorUsername and contract.EnvMonitorPassword.
func monitorCredential(getenv func(string) string) (*options.Credential, error) {
	return userCredential(getenv, contract.EnvMonitorUsername, contract.EnvMonitorPassword)
}

// clusterUser is the user a keyfile is the password of: the cluster's own,
// which every member and mongos derives from its --keyFile.
const clusterUser = "__system"

// clusterCredential authenticates as the cluster itself: __system on
// admin with the keyfile's content as its password and SCRAM-SHA-256, as
// MongoDB's own tests do (jstests/auth/system_auth_scram_mechs.js:
// db.auth({mechanism: "SCRAM-SHA-256", user: "__system", pwd: <keyfile
// without whitespace>}) on admin; in current branches SCRAM-SHA-1 fails
// for __system, so the mechanism is not left to negotiation).
func clusterCredential(key string) options.Credential {
	return options.Credential{AuthMechanism: "SCRAM-SHA-256", AuthSource: authSource, Username: clusterUser, Password: key}
}

// Bounds of a keyfile's key, whitespace removed: mongod refuses a key
// outside them ("security key in <file> has length <n>, must be between 6
// and 1024 chars", src/mongo/db/auth/security_key.cpp in mongodb/mongo).
const (
	minKeyLength = 6
	maxKeyLength = 1024
)

// readKeyfile reads the key of a keyfile as mongod does
// (readSecurityFile, src/mongo/db/auth/security_file.cpp in
// mongodb/mongo): every whitespace byte, \t \n \v \f \r (0x09 to 0x0D) and
// space, is dropped, and every other must be of the base64 alphabet. Its
// errors never show the key, nor any character of it.
func readKeyfile(path string) (string, error) {
	b, err := os.ReadFile(path) //nolint:gosec // the path is the Job's mount of the run's keyfile
	if err != nil {
		return "", fmt.Errorf("keyfile: %w", err)
	}
	key := make([]byte, 0, len(b))
	for i, c := range b {
		switch {
		case (c >= 0x09 && c <= 0x0D) || c == ' ':
			continue
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=':
			key = append(key, c)
		default:
			return "", fmt.Errorf("keyfile %s: byte %d is not of the base64 alphabet (A-Z a-z 0-9 + / =) mongod requires", path, i)
		}
	}
	if n := len(key); n < minKeyLength || n > maxKeyLength {
		return "", fmt.Errorf("keyfile %s: %d characters without whitespace, mongod requires %d to %d", path, n, minKeyLength, maxKeyLength)
	}
	return string(key), nil
}

// bootstrapUsers reads the users bootstrap creates from the environment;
// with --keyfile both pairs are required, without it neither may be set:
// only the cluster's own user may create users on a cluster whose members
// were started with --keyFile (the localhost exception never applies to a
// Job's pod), and a cluster without access control has no use for them.
func bootstrapUsers(keyfile string, getenv func(string) string) (mongoadmin.Users, error) {
	admin, err := adminCredential(getenv)
	if err != nil {
		return mongoadmin.Users{}, err
	}
	monitor, err := monitorCredential(getenv)
	if err != nil {
		return mongoadmin.Users{}, err
	}
	switch {
	case keyfile == "" && (admin != nil || monitor != nil):
		return mongoadmin.Users{}, usagef("%s/%s or %s/%s are set but --%s is not: the users are created as the cluster's own user, "+
			"whose password is the keyfile", contract.EnvUsername, contract.EnvPassword, contract.EnvMonitorUsername, contract.EnvMonitorPassword,
			contract.FlagKeyfile)
	case keyfile == "":
		return mongoadmin.Users{}, nil
	case admin == nil || monitor == nil:
		return mongoadmin.Users{}, usagef("--%s needs the users to create from the environment: %s and %s (the admin user, role %s) "+
			"and %s and %s (the telemetry user, role %s)", contract.FlagKeyfile, contract.EnvUsername, contract.EnvPassword, mongoadmin.RoleRoot,
			contract.EnvMonitorUsername, contract.EnvMonitorPassword, mongoadmin.RoleClusterMonitor)
	}
	return mongoadmin.Users{
		Admin:   mongoadmin.User{Name: admin.Username, Password: admin.Password},
		Monitor: mongoadmin.User{Name: monitor.Username, Password: monitor.Password},
	}, nil
}
