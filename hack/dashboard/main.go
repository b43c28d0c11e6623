package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "", "write the dashboard JSON to this file instead of stdout")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "dashboard:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	b, err := Render()
	if err != nil {
		return err
	}
	if out == "" {
		if _, err := os.Stdout.Write(b); err != nil {
			return fmt.Errorf("write the dashboard to stdout: %w", err)
		}
		return nil
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
