//go:build !purego

package ycsb

// Filling values is most of an insert's own CPU: ten 100-byte values are
// 170 generator steps and a thousand bytes cut from their bits. In Go each
// byte costs a shift, a mask, an add and a store; the assembly loop in
// values_amd64.s cuts a chunk's six bytes with two PEXT/PDEP pairs (BMI2)
// and two stores, which halves the work beside the generator's own steps
// (BenchmarkFillRandomValue100: 24 ns against 39 ns per 100 bytes on the
// Xeon that measured it). The output is the same bytes, and the generator
// ends in the same state (TestFillChunks).
//
// PDEP and PEXT are fast (3 cycles) on every Intel CPU that has them and
// on AMD from Zen 3 (family 19h); on Zen 1 and 2 (family 17h) and Hygon
// (18h) they are microcoded and far slower than the Go loop, so those run
// the Go loop. Build with -tags purego to run the Go loop everywhere.

// fillChunksBMI2 is fillChunksGeneric on chunks*6 bytes at buf (assembly).
//
//go:noescape
func fillChunksBMI2(buf *byte, chunks int, r *Rand)

// cpuid executes CPUID with the given leaf and subleaf (assembly).
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// fillChunksAsm reports whether fillChunks runs the assembly loop.
var fillChunksAsm = fastPDEP()

// fastPDEP reports whether the CPU has BMI2 with PDEP and PEXT in hardware.
func fastPDEP() bool {
	maxLeaf, b, c, d := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	if ebx7&(1<<8) == 0 { // BMI2
		return false
	}
	var vendor [12]byte
	for i, r := range [3]uint32{b, d, c} {
		vendor[4*i], vendor[4*i+1], vendor[4*i+2], vendor[4*i+3] = byte(r), byte(r>>8), byte(r>>16), byte(r>>24)
	}
	switch string(vendor[:]) {
	case "GenuineIntel":
		return true
	case "AuthenticAMD":
		eax1, _, _, _ := cpuid(1, 0)
		family := (eax1 >> 8) & 0xf
		if family == 0xf {
			family += (eax1 >> 20) & 0xff
		}
		return family >= 0x19
	default:
		// Hygon (Zen 1) and others: not known to be fast.
		return false
	}
}

// fillChunks fills buf, a whole number of 6-byte chunks (FillRandomValue).
func fillChunks(buf []byte, r *Rand) {
	if fillChunksAsm && len(buf) >= 6 {
		fillChunksBMI2(&buf[0], len(buf)/6, r)
		return
	}
	fillChunksGeneric(buf, r)
}
