package ycsb

import "strconv"

// FillRandomValue fills buf the way YCSB's RandomByteIterator generates a
// value: one 32-bit random number per 6-byte chunk, each byte a printable
// character ' ' + some bits of it; a final partial chunk uses the first
// len%6 bytes of a chunk. One RNG call per six bytes (go-ycsb spends one per
// byte).
func FillRandomValue(buf []byte, r *Rand) {
	full := len(buf) / 6 * 6
	fillChunks(buf[:full], r)
	if full < len(buf) {
		fillChunk(buf[full:], uint32(r.NextInt()))
	}
}

// fillChunksGeneric fills buf, a whole number of chunks, one NextInt each.
// The generator's state is held in scalars (see xoshiroNext), so the loop
// runs in registers; NextInt is the top half of a step's output. On amd64
// fillChunks runs an assembly version of this loop instead where it is
// faster (values_amd64.go); TestFillChunks checks that both agree.
func fillChunksGeneric(buf []byte, r *Rand) {
	s0, s1, s2, s3 := r.s0, r.s1, r.s2, r.s3
	var x uint64
	for off := 0; off+6 <= len(buf); off += 6 {
		// The array pointer drops the bounds checks of each byte.
		x, s0, s1, s2, s3 = xoshiroNext(s0, s1, s2, s3)
		v := uint32(x >> 32)
		c := (*[6]byte)(buf[off : off+6])
		c[0] = byte(v&31) + ' '
		c[1] = byte((v>>5)&63) + ' '
		c[2] = byte((v>>10)&95) + ' '
		c[3] = byte((v>>15)&31) + ' '
		c[4] = byte((v>>20)&63) + ' '
		c[5] = byte((v>>25)&95) + ' '
	}
	r.s0, r.s1, r.s2, r.s3 = s0, s1, s2, s3
}

// fillChunk writes up to six bytes of one chunk from the 32-bit value v.
// Byte k uses the bits YCSB's fillBytesImpl uses for position k, so a short
// chunk of m bytes gets exactly the first m bytes of a full one. (Java's
// arithmetic shift of a negative int only matters above bit 31, which the
// masks drop.)
func fillChunk(b []byte, v uint32) {
	switch len(b) {
	default:
		b[5] = byte((v>>25)&95) + ' '
		fallthrough
	case 5:
		b[4] = byte((v>>20)&63) + ' '
		fallthrough
	case 4:
		b[3] = byte((v>>15)&31) + ' '
		fallthrough
	case 3:
		b[2] = byte((v>>10)&95) + ' '
		fallthrough
	case 2:
		b[1] = byte((v>>5)&63) + ' '
		fallthrough
	case 1:
		b[0] = byte(v&31) + ' '
	case 0:
	}
}

// AppendDeterministicValue appends CoreWorkload.buildDeterministicValue(key,
// field) of the given size: "key:field", then repeatedly ':' followed by the
// Java String.hashCode of everything so far, truncated to size. Used for
// dataintegrity: the loader writes it and reads verify it.
func AppendDeterministicValue(dst, key []byte, field string, size int) []byte {
	start := len(dst)
	var h int32 // Java String.hashCode of dst[start:], maintained incrementally
	add := func(b byte) {
		dst = append(dst, b)
		h = 31*h + int32(b)
	}
	for _, c := range key {
		add(c)
	}
	add(':')
	for i := 0; i < len(field); i++ {
		add(field[i])
	}
	var num [11]byte
	for len(dst)-start < size {
		add(':')
		for _, c := range strconv.AppendInt(num[:0], int64(h), 10) {
			add(c)
		}
	}
	return dst[:start+size]
}
