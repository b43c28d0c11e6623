package contract

import (
	"strings"
	"testing"
)

// TestCredential: a pair of variables is both or neither; one alone is an
// error that names the missing one, and the error never holds the value
// that is set.
func TestCredential(t *testing.T) {
	const secret = "s3cret-value"
	for _, tc := range []struct {
		name       string
		env        map[string]string
		user, pass string
		ok         bool
		err        string
	}{
		{"neither", nil, "", "", false, ""},
		{"both", map[string]string{EnvUsername: "mongobench", EnvPassword: secret}, "mongobench", secret, true, ""},
		{"password alone", map[string]string{EnvPassword: secret}, "", "", false,
			"MONGOBENCH_PASSWORD is set but MONGOBENCH_USERNAME is not: set both or neither"},
		{"user alone", map[string]string{EnvUsername: secret}, "", "", false,
			"MONGOBENCH_USERNAME is set but MONGOBENCH_PASSWORD is not: set both or neither"},
		{"the other pair", map[string]string{EnvMonitorUsername: "m", EnvMonitorPassword: secret}, "", "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user, pass, ok, err := Credential(func(k string) string { return tc.env[k] }, EnvUsername, EnvPassword)
			if user != tc.user || pass != tc.pass || ok != tc.ok {
				t.Errorf("Credential = %q, %q, %v; want %q, %q, %v", user, pass, ok, tc.user, tc.pass, tc.ok)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("err = %v", err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("err = %v, want %q", err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("the error holds the value: %v", err)
			}
		})
	}
}

// TestAuthNamesAreDistinct: the four variables and the flag are four
// names, none of them another's.
func TestAuthNamesAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range []string{EnvUsername, EnvPassword, EnvMonitorUsername, EnvMonitorPassword, FlagKeyfile} {
		if n == "" || seen[n] {
			t.Errorf("name %q is empty or used twice", n)
		}
		seen[n] = true
	}
}
