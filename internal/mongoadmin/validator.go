package mongoadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// MongoDB's defaults, applied when the caller leaves level or action empty.
const (
	DefaultValidationLevel  = "strict"
	DefaultValidationAction = "error"
)

// ParseValidator converts a validator given as JSON text (the BenchmarkRun's
// spec.collection.validator, e.g. {"$jsonSchema": {"bsonType": "object",
// "required": ["field0"]}}) to BSON. It reads Extended JSON in relaxed mode,
// so plain JSON works and {"$date": ...}-style values become their BSON
// types; numbers become int32, int64 or double as they are written.
func ParseValidator(text []byte) (bson.Raw, error) {
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		return nil, errors.New("validator is empty: want a JSON object such as {\"$jsonSchema\": {...}}")
	}
	if text[0] != '{' {
		return nil, fmt.Errorf("validator %s: want a JSON object, e.g. {\"$jsonSchema\": {...}}", abbreviate(text))
	}
	// Plain JSON syntax first: its errors give the offset, and the Extended
	// JSON reader would ignore anything after the first object.
	var syntax any
	if err := json.Unmarshal(text, &syntax); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("validator is not valid JSON at offset %d: %w", se.Offset, err)
		}
		return nil, fmt.Errorf("validator is not valid JSON: %w", err)
	}
	var doc bson.D
	if err := bson.UnmarshalExtJSON(text, false, &doc); err != nil {
		return nil, fmt.Errorf("validator is not valid Extended JSON: %w", err)
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("validator: encode as BSON: %w", err)
	}
	return raw, nil
}

func abbreviate(b []byte) string {
	const limit = 40
	if len(b) > limit {
		return fmt.Sprintf("%q...", b[:limit])
	}
	return fmt.Sprintf("%q", b)
}

// validation is the desired validation state of a collection.
type validation struct {
	validator bson.Raw
	level     string
	action    string
}

// matches compares with what listCollections reports. Validators compare as
// relaxed Extended JSON, so int32 1 and int64 1 are the same, and a missing
// validator is the empty one; a missing level or action is MongoDB's default.
func (v validation) matches(spec *collectionSpec) bool {
	return v.mismatch(spec) == ""
}

// mismatch says how spec differs from v, or "" when it does not.
func (v validation) mismatch(spec *collectionSpec) string {
	got := spec.Options.Validator
	if len(got) == 0 {
		got = bson.Raw{5, 0, 0, 0, 0} // {}
	}
	level, action := spec.Options.ValidationLevel, spec.Options.ValidationAction
	if level == "" {
		level = DefaultValidationLevel
	}
	if action == "" {
		action = DefaultValidationAction
	}
	switch {
	case keyJSON(got) != keyJSON(v.validator):
		return fmt.Sprintf("validator is %s, want %s", keyJSON(got), keyJSON(v.validator))
	case level != v.level:
		return fmt.Sprintf("validationLevel is %q, want %q", level, v.level)
	case action != v.action:
		return fmt.Sprintf("validationAction is %q, want %q", action, v.action)
	}
	return ""
}

// ApplyValidator sets the validator, validationLevel and validationAction of
// the collection namespace (db.collection) on the server at uri with collMod,
// creating the collection with them if it does not exist, then reads the
// collection's options back and fails unless they are applied. Empty level
// and action mean MongoDB's defaults (strict, error). It is idempotent: when
// the collection already has them nothing is changed.
func ApplyValidator(ctx context.Context, uri, namespace string, validator bson.Raw, level, action string, opts Options) error {
	db, coll, err := splitNamespace(namespace)
	if err != nil {
		return err
	}
	if len(validator) == 0 {
		return errors.New("validator is empty (use {} to remove validation)")
	}
	if err := validator.Validate(); err != nil {
		return fmt.Errorf("validator is not a valid BSON document: %w", err)
	}
	want := validation{validator: validator, level: level, action: action}
	if want.level == "" {
		want.level = DefaultValidationLevel
	}
	if want.action == "" {
		want.action = DefaultValidationAction
	}

	r, ctx, cancel := newRunner(ctx, opts)
	defer cancel()
	defer r.close()

	err = r.retry(ctx, "apply validator to "+namespace, func(ctx context.Context) error {
		spec, err := r.findCollection(ctx, uri, db, coll)
		if err != nil {
			return err
		}
		if spec == nil {
			_, err := r.run(ctx, uri, db, createCommand(coll, &want))
			if err == nil {
				r.log.Info("collection created with validator", "namespace", namespace)
				return nil
			}
			if !hasCode(err, codeNamespaceExists) {
				return err
			}
			// Created meanwhile by someone else: modify it below.
		} else if want.matches(spec) {
			r.log.Info("validator already applied", "namespace", namespace)
			return nil
		}
		_, err = r.run(ctx, uri, db, collModCommand(coll, want))
		if err != nil {
			return err
		}
		r.log.Info("validator applied", "namespace", namespace, "level", want.level, "action", want.action)
		return nil
	})
	if err != nil {
		return err
	}

	// Read back: a server that accepts the command but drops part of it must
	// not pass for one that applied it.
	var spec *collectionSpec
	err = r.retry(ctx, "verify validator on "+namespace, func(ctx context.Context) error {
		spec, err = r.findCollection(ctx, uri, db, coll)
		return err
	})
	if err != nil {
		return err
	}
	if spec == nil {
		return fmt.Errorf("verify validator on %s: the collection does not exist after it was created", namespace)
	}
	if diff := want.mismatch(spec); diff != "" {
		return fmt.Errorf("verify validator on %s: not applied: listCollections reports that its %s", namespace, diff)
	}
	r.log.Info("validator verified", "namespace", namespace)
	return nil
}
