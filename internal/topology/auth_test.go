package topology

import (
	"regexp"
	"testing"
)

// TestNewKeyfile: a keyfile mongod accepts — 6 to 1024 characters of the
// base64 alphabet (security_file.cpp) — and a new one each time.
func TestNewKeyfile(t *testing.T) {
	a, err := NewKeyfile()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewKeyfile()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) < 6 || len(a) > 1024 || !regexp.MustCompile(`^[A-Za-z0-9+/=]+$`).Match(a) {
		t.Errorf("keyfile of %d characters that mongod refuses: %q", len(a), a)
	}
	if string(a) == string(b) {
		t.Error("two keyfiles alike")
	}
}

// TestKeyfileSecretsAndVolumes: the Secrets are the run's; mongod reads a
// 0400 copy the init container makes from a Secret volume.
func TestKeyfileSecretsAndVolumes(t *testing.T) {
	run := sharded(2)
	checkOwner(t, KeyfileSecret(run, []byte("abcdef")))
	checkOwner(t, AdminSecret(run, []byte("pw")))
	ic := KeyfileInitContainer(run)
	if got := ic.Command; len(got) != 5 || got[0] != "install" || got[2] != "0400" || got[4] != KeyfilePath {
		t.Errorf("init container command %v", got)
	}
	vols := KeyfileVolumes(run)
	if vols[0].Secret == nil || vols[0].Secret.SecretName != "ms-keyfile" || *vols[0].Secret.DefaultMode != 0o440 {
		t.Errorf("secret volume %+v", vols[0])
	}
	if vols[1].EmptyDir == nil {
		t.Errorf("copy volume %+v", vols[1])
	}
}
