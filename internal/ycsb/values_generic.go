//go:build !amd64 || purego

package ycsb

// fillChunks fills buf, a whole number of 6-byte chunks (FillRandomValue).
func fillChunks(buf []byte, r *Rand) { fillChunksGeneric(buf, r) }

// fillChunksAsm reports whether fillChunks runs the assembly loop.
const fillChunksAsm = false
