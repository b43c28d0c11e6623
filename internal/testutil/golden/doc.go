// Package golden compares a test's output with a file checked into the
// repository, or rewrites the file: the one home of the golden-file rule
// of the packages whose tests take -update.
package golden
