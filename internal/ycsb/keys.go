package ycsb

import "strconv"

const (
	fnvOffsetBasis64 = 0xCBF29CE484222325
	fnvPrime64       = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1a over the eight bytes of v,
// lowest byte first, then Math.abs. Like Java, the absolute value of
// math.MinInt64 stays negative. (go-ycsb hashes big-endian bytes and so
// produces other keys; we match YCSB.)
func FNVHash64(v int64) int64 {
	h := uint64(fnvOffsetBasis64)
	for i := 0; i < 8; i++ {
		h ^= uint64(v & 0xff)
		h *= fnvPrime64
		v >>= 8
	}
	r := int64(h)
	if r < 0 {
		r = -r
	}
	return r
}

// BuildKeyName appends YCSB's key for keynum to dst and returns the extended
// slice: "user" + zero padding up to zeropadding digits + the decimal number,
// hashed with FNVHash64 first unless ordered. It does not allocate when dst
// has room (4 + max(20, zeropadding) bytes always suffice).
func BuildKeyName(dst []byte, keynum int64, zeropadding int, ordered bool) []byte {
	if !ordered {
		keynum = FNVHash64(keynum)
	}
	var num [20]byte
	digits := strconv.AppendInt(num[:0], keynum, 10)
	dst = append(dst, "user"...)
	for i := len(digits); i < zeropadding; i++ {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}

// keyBufferSize is the capacity that lets BuildKeyName never grow the buffer.
func keyBufferSize(zeropadding int) int {
	return 4 + max(20, zeropadding)
}
