package mockserver

import (
	"bytes"
	"encoding/json"
	"strconv"

	"contractkit/spec"
)

// Real clients send spellings the seed's usage examples show but its tables
// do not (D-21): `name` for `model_name`, an integer `dataset_id`, a string
// `model_id`, a `file` part. The contract keeps the tables' shapes, so a
// conformance run never depends on the alternatives; the mock rewrites them
// into the declared shape before validation, so those clients keep working.

// rewrite is one change to a request before it is validated. A rename moves
// field From to To when To is absent; a conversion replaces the value of
// Field (after the renames) by the declared type's, when it has that form.
type rewrite struct {
	From, To string
	Field    string
	Convert  func(json.RawMessage) (json.RawMessage, bool)
}

// rewrites is the one table, per operationId. For multipart operations only
// renames apply, to part names, as the form is read (formName).
var rewrites = map[string][]rewrite{
	spec.OpCreateModel: {
		{From: "name", To: "model_name"},
		{From: "dataset", To: "dataset_id"},
		{Field: "dataset_id", Convert: integerToString},
	},
	spec.OpCreateConversation: {
		{Field: "model_id", Convert: stringToInteger},
	},
	spec.OpCreateDataset: {
		{From: "name", To: "dataset_name"},
		{From: "file", To: "files"},
	},
	spec.OpUploadDatasetFiles: {
		{From: "file", To: "files"},
	},
}

// normalize rewrites the JSON body of c in place, before validation. A body
// that is not a JSON object is left for the validator to refuse. It returns
// the body's members as parsed (after the rewrites), for stripUnknown to
// walk without parsing the body again; nil when it did not parse it.
func normalize(c *call) map[string]json.RawMessage {
	rules := rewrites[c.op.OperationID]
	if len(rules) == 0 || c.body == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(c.body, &obj) != nil || obj == nil {
		return nil
	}
	changed := false
	for _, r := range rules {
		switch {
		case r.Convert != nil:
			if v, ok := obj[r.Field]; ok {
				if nv, ok := r.Convert(v); ok {
					obj[r.Field], changed = nv, true
				}
			}
		case r.From != "":
			if v, ok := obj[r.From]; ok {
				if _, taken := obj[r.To]; !taken {
					obj[r.To] = v
					delete(obj, r.From)
					changed = true
				}
			}
		}
	}
	if !changed {
		return obj
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	c.body = b
	return obj
}

// formName is the declared name of a multipart part or field of operation
// op. Values sent under both names are read as the declared one's, in the
// order sent.
func formName(op, name string) string {
	for _, r := range rewrites[op] {
		if r.From == name && r.To != "" {
			return r.To
		}
	}
	return name
}

// integerToString turns 12 into "12"; other values are left to validation.
func integerToString(v json.RawMessage) (json.RawMessage, bool) {
	v = bytes.TrimSpace(v)
	if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
		return nil, false
	}
	return json.RawMessage(strconv.Quote(string(v))), true
}

// stringToInteger turns "7" into 7; other values are left to validation.
func stringToInteger(v json.RawMessage) (json.RawMessage, bool) {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, false
	}
	return json.RawMessage(strconv.FormatInt(n, 10)), true
}
