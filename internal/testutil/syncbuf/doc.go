// Package syncbuf is a bytes.Buffer that goroutines may write while a test
// reads it: a process's or a logger's output.
package syncbuf
