package mongodb

import (
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/ycsb"
)

// The documents, filters and updates the binding sends, built as raw BSON by
// appending to per-thread buffers: no reflection, no maps, no allocation once
// the buffers have grown. The driver copies what it is given into the
// command it sends within the call, so a buffer can be reused as soon as a
// call returns.
//
// Keys arrive as byte slices (the engine does not allocate a string per
// operation); BSON strings are length-prefixed bytes, so they go in as is.
// YCSB keys are ASCII, hence valid UTF-8.

// rawArg hands one of those buffers to the driver, whose methods take the
// filter, update or document as an `any`. Converting a slice to an
// interface allocates a copy of its header (runtime.convTslice), on every
// call. The buffer is rewritten in place for each operation, so while it
// starts at the same address and has the same length the header is the
// same, and the boxed one is handed over again. That is most calls, not
// all: hashed keys differ in their number of digits, so a filter's length
// changes now and then, and e alternates point and scan filters.
//
// The check is enough: the box keeps the old array alive, so no other
// array can start at its address, and a buffer only grows by appending
// from [:0], so an array's capacity never changes. Aliasing is what it
// was: the box points at the buffer, as bson.Raw(buf) did, and the
// buffer is only rewritten after the call returned. The driver reads it
// within the call only: marshal encodes a filter or document into a new
// buffer (driver v2.9.3, mongo/mongo.go, marshal), and an update's
// bson.Raw, kept as is (marshalUpdateValue), is copied into the wire
// message the call builds; a MarshalError keeps the value, but its
// message shows only the type.
type rawArg struct {
	v any
	p *byte
	n int
}

// of returns b as a bson.Raw in an interface, the boxed one when b has
// the start and length it had then.
func (a *rawArg) of(b []byte) any {
	if len(b) == 0 {
		return bson.Raw(b)
	}
	if a.p != &b[0] || a.n != len(b) {
		a.v, a.p, a.n = bson.Raw(b), &b[0], len(b)
	}
	return a.v
}

// idKey is the name of the key field, MongoDB's primary key.
const idKey = "_id"

// appendStringValue appends a BSON string value (length, bytes, NUL).
func appendStringValue(dst, s []byte) []byte {
	dst = bsoncore.AppendInt32(dst, int32(len(s)+1))
	dst = append(dst, s...)
	return append(dst, 0)
}

// appendIDFilter appends {_id: key}.
func appendIDFilter(dst, key []byte) []byte {
	idx, dst := bsoncore.ReserveLength(dst)
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, idKey)
	dst = appendStringValue(dst, key)
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
}

// appendScanFilter appends {_id: {$gte: key}}.
func appendScanFilter(dst, key []byte) []byte {
	idx, dst := bsoncore.ReserveLength(dst)
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeEmbeddedDocument, idKey)
	inner, dst := bsoncore.ReserveLength(dst)
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, "$gte")
	dst = appendStringValue(dst, key)
	dst = append(dst, 0)
	dst = bsoncore.UpdateLength(dst, inner, int32(len(dst[inner:])))
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
}

// appendFieldElements appends name: BinData(0, value) for every field: YCSB
// stores each value as the byte[] of its ByteIterator, which the Java driver
// writes as binary subtype 0.
//
// The element is written here rather than by bsoncore.AppendBinaryElement,
// whose AppendHeader scans every key for a NUL and panics on one (driver
// v2.9.3 x/bsonx/bsoncore/bsoncore.go, isValidCString): ten scans per insert on the
// hottest path. Field names are the workload's, and ycsb.NewWorkload
// rejects a fieldnameprefix holding a NUL, the only way one could get in.
func appendFieldElements(dst []byte, fields []ycsb.Field) []byte {
	for i := range fields {
		dst = append(dst, byte(bsoncore.TypeBinary))
		dst = append(dst, fields[i].Name...)
		dst = append(dst, 0)
		dst = bsoncore.AppendInt32(dst, int32(len(fields[i].Value)))
		dst = append(dst, bson.TypeBinaryGeneric)
		dst = append(dst, fields[i].Value...)
	}
	return dst
}

// appendDocument appends the record {_id: key, field0: BinData, ...}. The
// values are copied, so the caller may reuse its buffers (as the engine
// does) even when the document is kept for a batch.
func appendDocument(dst, key []byte, fields []ycsb.Field) []byte {
	idx, dst := bsoncore.ReserveLength(dst)
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, idKey)
	dst = appendStringValue(dst, key)
	dst = appendFieldElements(dst, fields)
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
}

// appendSetUpdate appends {$set: {field: BinData, ...}}.
func appendSetUpdate(dst []byte, fields []ycsb.Field) []byte {
	idx, dst := bsoncore.ReserveLength(dst)
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeEmbeddedDocument, "$set")
	inner, dst := bsoncore.ReserveLength(dst)
	dst = appendFieldElements(dst, fields)
	dst = append(dst, 0)
	dst = bsoncore.UpdateLength(dst, inner, int32(len(dst[inner:])))
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
}

// projection returns {field: 1, ...} (YCSB's INCLUDE). _id is returned by
// the server anyway, as in YCSB.
func projection(fields []string) bson.Raw {
	idx, dst := bsoncore.ReserveLength(nil)
	for _, f := range fields {
		dst = bsoncore.AppendInt32Element(dst, f, 1)
	}
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
}

// sortByID is the scan's sort, {_id: 1}.
var sortByID = projection([]string{idKey})

// documentID returns the _id string of a document built by appendDocument
// (its first element), without allocating.
func documentID(doc []byte) []byte {
	// length(4) type(1) "_id\0"(4) strlen(4) bytes NUL
	const off = 4 + 1 + len(idKey) + 1
	if len(doc) < off+4 || doc[4] != byte(bsoncore.TypeString) {
		return nil
	}
	n := int(int32(uint32(doc[off]) | uint32(doc[off+1])<<8 | uint32(doc[off+2])<<16 | uint32(doc[off+3])<<24))
	if n < 1 || off+4+n > len(doc) {
		return nil
	}
	return doc[off+4 : off+4+n-1]
}

// appendBinaryFields appends to result the binary fields of a document read
// back (YCSB's fillMap keeps exactly the Binary values), for the engine's
// data-integrity check. Values alias doc, which the driver allocated for
// this reply alone. Names are taken from fields when they match, so the
// common case does not allocate a string per field.
func appendBinaryFields(result *[]ycsb.Field, doc bson.Raw, fields []string) error {
	if len(doc) < 5 {
		return errors.New("document too short")
	}
	rem := []byte(doc[4 : len(doc)-1])
	for len(rem) > 0 {
		elem, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return errors.New("malformed document")
		}
		rem = rest
		if len(elem) == 0 || bsoncore.Type(elem[0]) != bsoncore.TypeBinary {
			continue
		}
		key := elem.KeyBytes()
		_, data, ok := elem.Value().BinaryOK()
		if !ok {
			return fmt.Errorf("field %q: malformed binary value", key)
		}
		name := ""
		for _, f := range fields {
			if f == string(key) { // compiled without a conversion
				name = f
				break
			}
		}
		if name == "" {
			name = string(key)
		}
		*result = append(*result, ycsb.Field{Name: name, Value: data})
	}
	return nil
}
