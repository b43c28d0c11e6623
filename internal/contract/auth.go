package contract

import "fmt"

// The credentials of a run with security.auth (docs/design/auth.md). Jobs
// get them from the run's Secrets, the users' through the environment
// (secretKeyRef) and the keyfile as a mounted file; never in a flag or a
// URL, which land in pod specs, logs, events and the run's status.
const (
	// EnvUsername and EnvPassword are the admin user (role root) that the
	// load, run, grow, collmod and validator Jobs connect as.
	EnvUsername = "MONGOBENCH_USERNAME"
	EnvPassword = "MONGOBENCH_PASSWORD"
	// EnvMonitorUsername and EnvMonitorPassword are the telemetry user
	// (role clusterMonitor), which loader 0 samples every process with.
	EnvMonitorUsername = "MONGOBENCH_MONITOR_USERNAME"
	EnvMonitorPassword = "MONGOBENCH_MONITOR_PASSWORD"
	// FlagKeyfile is `loader bootstrap`'s path of the run's keyfile: it
	// authenticates as the cluster (__system) with it, initiates, and
	// creates the two users with the passwords of the environment.
	FlagKeyfile = "keyfile"
)

// Credential reads a user name and password from the environment
// variables userVar and passVar: ok when both are set, neither means no
// authentication, and one alone is an error naming the one missing.
func Credential(getenv func(string) string, userVar, passVar string) (user, password string, ok bool, err error) {
	user, password = getenv(userVar), getenv(passVar)
	switch {
	case user == "" && password == "":
		return "", "", false, nil
	case user == "":
		return "", "", false, fmt.Errorf("%s is set but %s is not: set both or neither", passVar, userVar)
	case password == "":
		return "", "", false, fmt.Errorf("%s is set but %s is not: set both or neither", userVar, passVar)
	}
	return user, password, true, nil
}
