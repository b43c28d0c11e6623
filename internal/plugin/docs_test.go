package plugin

import (
	"fmt"
	"os"
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
