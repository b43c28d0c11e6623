package loader

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite the help blocks of docs/loader.md from the commands' -h")

// loaderDoc is the user guide of the loader command.
const loaderDoc = "../../docs/loader.md"

// TestDocShowsEveryCommandsHelp: docs/loader.md shows each command's -h
// exactly as the loader prints it (its flags, and for load, run and grow
// every property with its default), so the page cannot drift from the
// code. A block follows its marker, "<!-- loader CMD -h -->", as a text
// fence; go test ./internal/loader -run TestDocShowsEveryCommandsHelp
// -update rewrites the blocks.
func TestDocShowsEveryCommandsHelp(t *testing.T) {
	doc, err := os.ReadFile(loaderDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for _, args := range [][]string{{"-h"}, {"load", "-h"}, {"grow", "-h"}, {"bootstrap", "-h"}, {"collmod", "-h"}, {"dropdatabase", "-h"}, {"freeze", "-h"}} {
		var out bytes.Buffer
		if code := Main(context.Background(), args, Env{Stdout: &out, Stderr: &out}); code != ExitOK {
			t.Fatalf("loader %s: exit %d\n%s", strings.Join(args, " "), code, out.String())
		}
		marker := fmt.Sprintf("<!-- loader %s -->\n```text\n", strings.Join(args, " "))
		start := strings.Index(text, marker)
		if start < 0 {
			t.Errorf("%s has no block for loader %s (a line %q, then a text fence)", loaderDoc, strings.Join(args, " "), strings.SplitN(marker, "\n", 2)[0])
			continue
		}
		start += len(marker)
		end := strings.Index(text[start:], "```")
		if end < 0 {
			t.Fatalf("%s: the block of loader %s is not closed", loaderDoc, strings.Join(args, " "))
		}
		want := out.String()
		if got := text[start : start+end]; got != want {
			if *updateDocs {
				text = text[:start] + want + text[start+end:]
				continue
			}
			t.Errorf("%s shows another help for loader %s than the loader prints (go test ./internal/loader -run TestDocShowsEveryCommandsHelp -update rewrites it); the loader prints:\n%s",
				loaderDoc, strings.Join(args, " "), want)
		}
	}
	if *updateDocs && text != string(doc) {
		if err := os.WriteFile(loaderDoc, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
