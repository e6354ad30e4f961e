package mockserver

import (
	"errors"
	"fmt"

	"contractkit/mockserver/store"
	"contractkit/spec"
)

// requestBounds are the lengths and counts the mock checks in its own code,
// read from the contract once by New, so that no handler retypes a number
// the document states and a document that stops stating one stops the mock
// at start-up. The validator enforces every other bound of a JSON body or a
// query straight from the document; these are the ones it does not see:
// the fields of the two multipart forms, which are read as a stream
// (readForm), and the evaluation name rules the store applies to
// check-name too (D-19).
type requestBounds struct {
	// The text fields of the create of datasets (D-15).
	datasetName, datasetDescription store.Length
	// files: the file parts of each multipart operation (D-15), by
	// operationId.
	files map[string]store.Length
	// tags and urls of the create of datasets: how the string is split
	// (D-08) and the most items it may hold (D-28).
	tags, urls spec.Split
	// evaluationName: the name of the create of evaluations (D-19), which
	// the store applies to creates, renames and check-name alike.
	evaluationName store.Length
	// limits: the body sizes and the JSON nesting no schema keyword can
	// state (D-15, the contract's x-request-limits mark).
	limits spec.Limits
}

// multipartForm is the media type of the two upload operations (seed §4.3).
const multipartForm = "multipart/form-data"

// readBounds reads every bound the handlers check from c, finding each
// operation by its place: the create of datasets, the create of
// evaluations, every operation whose body is a form (readForm reads the
// file parts of each).
func readBounds(c *spec.Contract) (requestBounds, error) {
	r := boundReader{c: c}
	datasets, evaluations := r.create("dataset_id"), r.create("evaluation_id")
	b := requestBounds{
		datasetName:        r.length(datasets, multipartForm, "dataset_name"),
		datasetDescription: r.length(datasets, multipartForm, "description"),
		files:              map[string]store.Length{},
		tags:               r.split(datasets, "tags"),
		urls:               r.split(datasets, "urls"),
		evaluationName:     r.length(evaluations, "application/json", "name"),
		limits:             c.Limits,
	}
	for _, op := range c.MultipartOperations() {
		b.files[op.ID] = r.items(op.ID, multipartForm, "files")
	}
	return b, errors.Join(r.errs...)
}

// boundReader looks bounds up and keeps every failure.
type boundReader struct {
	c    *spec.Contract
	errs []error
}

func (r *boundReader) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("contract bounds: "+format, args...))
}

// create is the operationId of the create of the resource of id parameter
// param.
func (r *boundReader) create(param string) string {
	id, err := createOf(r.c, param)
	if err != nil {
		r.errs = append(r.errs, err)
	}
	return id
}

// length is a string field's minLength and maxLength; it must state a maximum.
func (r *boundReader) length(op, media, field string) store.Length {
	s, err := r.c.RequestField(op, media, field)
	switch {
	case err != nil:
		r.errs = append(r.errs, err)
	case s.MaxLength == nil:
		r.fail("%s: %s states no maxLength", op, field)
	default:
		return store.Length{Min: int(s.MinLength), Max: int(*s.MaxLength)}
	}
	return store.Length{}
}

// items is an array field's minItems and maxItems; it must state a maximum.
func (r *boundReader) items(op, media, field string) store.Length {
	s, err := r.c.RequestField(op, media, field)
	switch {
	case err != nil:
		r.errs = append(r.errs, err)
	case s.MaxItems == nil:
		r.fail("%s: %s states no maxItems", op, field)
	default:
		return store.Length{Min: int(s.MinItems), Max: int(*s.MaxItems)}
	}
	return store.Length{}
}

// split is a multipart string field's x-split mark; it must have one.
func (r *boundReader) split(op, field string) spec.Split {
	s, err := r.c.RequestField(op, multipartForm, field)
	if err != nil {
		r.errs = append(r.errs, err)
		return spec.Split{}
	}
	sp, ok, err := spec.SplitOf(s)
	switch {
	case err != nil:
		r.errs = append(r.errs, fmt.Errorf("%s: %s: %w", op, field, err))
	case !ok:
		r.fail("%s: %s has no %s mark", op, field, spec.SplitMark)
	}
	return sp
}
