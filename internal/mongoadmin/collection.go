package mongoadmin

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// collectionSpec is one entry of listCollections.
type collectionSpec struct {
	Name    string `bson:"name"`
	Type    string `bson:"type"` // "collection", "view", "timeseries"
	Options struct {
		Validator        bson.Raw `bson:"validator"`
		ValidationLevel  string   `bson:"validationLevel"`
		ValidationAction string   `bson:"validationAction"`
	} `bson:"options"`
}

// findCollection returns the collection's listCollections entry, or nil when
// it does not exist. The name is checked here as well as in the filter:
// mongo-java-server, which the tests use, ignores the filter.
func (r *runner) findCollection(ctx context.Context, uri, db, coll string) (*collectionSpec, error) {
	docs, err := r.cursorAll(ctx, uri, db, listCollectionCommand(coll))
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		var spec collectionSpec
		if err := bson.Unmarshal(d, &spec); err != nil {
			return nil, fmt.Errorf("listCollections on %s: decode %s: %w", redactURI(uri), d, err)
		}
		if spec.Name == coll {
			return &spec, nil
		}
	}
	return nil, nil
}

// ensureCollection creates db.coll unless it exists.
func (r *runner) ensureCollection(ctx context.Context, uri, ns string) error {
	db, coll, err := splitNamespace(ns)
	if err != nil {
		return err
	}
	return r.retry(ctx, "create collection "+ns, func(ctx context.Context) error {
		spec, err := r.findCollection(ctx, uri, db, coll)
		if err != nil {
			return err
		}
		if spec != nil {
			r.log.Info("collection exists", "namespace", ns)
			return nil
		}
		_, err = r.run(ctx, uri, db, createCommand(coll, nil))
		switch {
		case err == nil:
			r.log.Info("collection created", "namespace", ns)
		case hasCode(err, codeNamespaceExists):
			r.log.Info("collection exists", "namespace", ns)
		default:
			return err
		}
		return nil
	})
}
