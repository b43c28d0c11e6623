package growth

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Field names of a growth document, in their order:
//
//	{_id: i (int64), number: int64, number1: int64, date: date, payload: string}
const (
	FieldID      = "_id"
	FieldNumber  = "number"
	FieldNumber1 = "number1"
	FieldDate    = "date"
	FieldPayload = "payload"
)

// documentOverhead is a document's BSON size without its payload's bytes:
// the length and terminator (5), _id (13), number (16), number1 (17), date
// (14) and the payload element's type, name, length and NUL (14).
const documentOverhead = 5 + 13 + 16 + 17 + 14 + 14

// DocumentSize is the BSON size of a document with a payload of
// payloadSize bytes: 79 + payloadSize.
func DocumentSize(payloadSize int) int { return documentOverhead + payloadSize }

// payloadPoolSize is the size of the pool payloads are cut from.
const payloadPoolSize = 1 << 20

// Generator makes the documents of a Grow phase. Document i is a pure
// function of the seed and i, never of a stream: a resumed phase makes the
// same documents, and any document can be made again (to fill a hole, or to
// know what a query should find) without the ones before it.
//
//   - _id is i.
//   - number is uniform in [0, N), N = ceil(target / matchesPerValue), so
//     each value matches matchesPerValue documents on average at the
//     target (fewer before).
//   - number1 is uniform in [0, N) too: a fixed permutation of number
//     (paired) or drawn on its own (independent).
//   - date is start + i·step + a jitter uniform in [0, jitter): increasing
//     on the whole, not from one document to the next.
//   - payload is payloadSize printable ASCII characters (as random as
//     YCSB's values: compression gains little), cut from a 1 MiB pool at a
//     position drawn per document.
//
// The values of document i come from four 64-bit hashes of (seed, i)
// (SplitMix64's finaliser of a Weyl sequence): uniform and independent
// enough for the tests' chi-square checks, and about 2 ns each.
type Generator struct {
	key         uint64
	values      uint64
	paired      bool
	permA       uint64
	permB       uint64
	start       int64
	step        int64
	jitter      uint64
	payloadSize int
	pool        []byte
}

// NewGenerator returns the generator of a phase growing to target records.
func NewGenerator(d DocumentConfig, target int64) (*Generator, error) {
	if target < 1 || d.MatchesPerValue < 1 || d.PayloadSize < 0 || d.PayloadSize > MaxPayloadSize {
		return nil, fmt.Errorf("generator: target %d, matches per value %d and payload size %d out of range",
			target, d.MatchesPerValue, d.PayloadSize)
	}
	g := &Generator{
		key:         mix(d.Seed ^ 0x6a09e667f3bcc908),
		values:      uint64((target + d.MatchesPerValue - 1) / d.MatchesPerValue),
		paired:      d.Number1 != Number1Independent,
		start:       d.DateStart.UnixMilli(),
		step:        d.DateStep.Milliseconds(),
		jitter:      uint64(d.DateJitter.Milliseconds()),
		payloadSize: d.PayloadSize,
	}
	// The permutation v → (a·v + b) mod N of paired number1, a coprime
	// with N.
	if g.values > 1 {
		g.permA = 1 + mix(g.key^1)%(g.values-1)
		for gcd(g.permA, g.values) != 1 {
			g.permA = g.permA%(g.values-1) + 1
		}
		g.permB = mix(g.key^2) % g.values
	}
	rng := rand.New(rand.NewPCG(g.key, 3))
	g.pool = make([]byte, max(payloadPoolSize, 2*d.PayloadSize))
	for i := range g.pool {
		g.pool[i] = byte(' ' + rng.IntN(95))
	}
	return g, nil
}

// Values is N: number and number1 are in [0, N).
func (g *Generator) Values() int64 { return int64(g.values) }

// Paired reports whether number1 is a function of number.
func (g *Generator) Paired() bool { return g.paired }

// mix is SplitMix64's finaliser.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

const golden = 0x9e3779b97f4a7c15

// hash is the k-th 64-bit hash of record i.
func (g *Generator) hash(i int64, k uint64) uint64 {
	return mix(g.key + uint64(i)*golden + k*0xd1b54a32d192ed03)
}

// below maps a uniform 64-bit value onto [0, n) (Lemire's multiply-shift;
// the bias, n/2^64, is nil for any n here).
func below(h, n uint64) uint64 {
	hi, _ := bits.Mul64(h, n)
	return hi
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Number is record i's number.
func (g *Generator) Number(i int64) int64 { return int64(below(g.hash(i, 0), g.values)) }

// Number1 is record i's number1.
func (g *Generator) Number1(i int64) int64 {
	if g.paired {
		return g.Pair(g.Number(i))
	}
	return int64(below(g.hash(i, 1), g.values))
}

// Pair is the number1 of every document whose number is v, when number1
// is paired.
func (g *Generator) Pair(v int64) int64 {
	if g.values == 1 {
		return 0
	}
	hi, lo := bits.Mul64(g.permA, uint64(v))
	_, rem := bits.Div64(hi, lo, g.values)
	return int64((rem + g.permB) % g.values)
}

// DateMillis is record i's date, milliseconds since the Unix epoch.
func (g *Generator) DateMillis(i int64) int64 {
	d := g.start + i*g.step
	if g.jitter > 0 {
		d += int64(below(g.hash(i, 2), g.jitter))
	}
	return d
}

// payload is record i's payload.
func (g *Generator) payload(i int64) []byte {
	off := below(g.hash(i, 3), uint64(len(g.pool)-g.payloadSize+1))
	return g.pool[off : off+uint64(g.payloadSize)]
}

// AppendDocument appends record i's BSON document to dst. It allocates
// nothing once dst has room.
func (g *Generator) AppendDocument(dst []byte, i int64) []byte {
	idx, dst := bsoncore.ReserveLength(dst)
	dst = bsoncore.AppendInt64Element(dst, FieldID, i)
	dst = bsoncore.AppendInt64Element(dst, FieldNumber, g.Number(i))
	dst = bsoncore.AppendInt64Element(dst, FieldNumber1, g.Number1(i))
	dst = bsoncore.AppendDateTimeElement(dst, FieldDate, g.DateMillis(i))
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, FieldPayload)
	p := g.payload(i)
	dst = bsoncore.AppendInt32(dst, int32(len(p)+1))
	dst = append(dst, p...)
	dst = append(dst, 0, 0) // the string's NUL, the document's terminator
	return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
}
