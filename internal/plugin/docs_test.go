package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// pluginDoc is the user guide of the plugin.
const pluginDoc = "../../docs/plugin.md"

// TestDocCoversEveryCommandFlagAndExitCode: docs/plugin.md has a section
// ("## NAME") for every command, names each of the command's own flags in
// it, and wait's section gives every exit code: a new command, flag or
// code cannot ship undocumented.
func TestDocCoversEveryCommandFlagAndExitCode(t *testing.T) {
	doc, err := os.ReadFile(pluginDoc)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, part := range strings.Split(string(doc), "\n## ")[1:] {
		heading, body, _ := strings.Cut(part, "\n")
		sections[heading] = body
	}
	root := newRootCommand(newOptions(genericiooptions.NewTestIOStreamsDiscard()))
	n := 0
	for _, cmd := range root.Commands() {
		if cmd.Hidden || cmd.Name() == "help" {
			continue
		}
		n++
		body, ok := sections[cmd.Name()]
		if !ok {
			t.Errorf("%s has no section \"## %s\"", pluginDoc, cmd.Name())
			continue
		}
		cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" {
				return
			}
			if !strings.Contains(body, "--"+f.Name) && (f.Shorthand == "" || !strings.Contains(body, "-"+f.Shorthand+" ")) {
				t.Errorf("%s: section %s does not name the flag --%s", pluginDoc, cmd.Name(), f.Name)
			}
		})
	}
	if n < 4 {
		t.Errorf("found %d commands", n)
	}
	wait := sections["wait"]
	for _, code := range []ExitCode{ExitOK, ExitFailed, ExitNoVerdict, ExitRegressed, ExitInvalid} {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^\| \*\*%d\*\* \|`, code)).MatchString(wait) {
			t.Errorf("%s: wait's exit code table has no row **%d**", pluginDoc, code)
		}
	}
}

// TestExitCode2IsNoVerdictEverywhere: wherever the README, docs/, the CI
// script or a command's help describe exit code 2, they call it "no
// verdict" before saying what it covers, as exit.go does: a reader who
// meets "2 usage error" in one place and "2 no verdict: timed out" in
// another would think they are two codes.
func TestExitCode2IsNoVerdictEverywhere(t *testing.T) {
	texts := map[string]string{}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) < 10 {
		t.Fatalf("docs/*.md: %d pages, %v", len(pages), err)
	}
	for _, p := range append(pages, "../../README.md", "../../hack/ci-gate.sh") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[p] = string(b)
	}
	root := newRootCommand(newOptions(genericiooptions.NewTestIOStreamsDiscard()))
	for _, cmd := range root.Commands() {
		texts["kubectl mongobench "+cmd.Name()+" --help"] = cmd.Long
	}
	// Code 2 ("2", "**2**", a table's "| **2** |"), then what it means.
	described := regexp.MustCompile(`(?:\*\*2\*\*(?:\s*\|)?|(?:^|[\s,(])2)\s+(no verdict|a usage error|usage error|timed out|timeout|the run does not exist|the API server)`)
	n := 0
	for name, text := range texts {
		for _, m := range described.FindAllStringSubmatch(text, -1) {
			n++
			if m[1] != "no verdict" {
				t.Errorf("%s describes exit code 2 as %q, not as no verdict: %q", name, m[1], m[0])
			}
		}
	}
	if n < 8 {
		t.Errorf("found %d descriptions of exit code 2", n)
	}
}
