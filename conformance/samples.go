package conformance

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/fixtures"
	"contractkit/spec"
)

// A sample request of any operation, read from the contract rather than
// written per operation: the operation's request example (a JSON body, or
// a multipart form whose file values name files of the fixtures), its
// required query parameters and its path, with every id it names filled
// from the resources a check made, or with an id no resource has. The
// authentication checks, the unknown-id checks, the isolation checks and
// the checks that a deleted resource is gone send these, so a new
// operation gets them from its request example, with no code here.

// sample is what the contract gives to build an operation's sample
// request.
type sample struct {
	op    spec.Operation
	word  string // what a fresh name names ("model")
	path  []slot // the path parameters
	query []slot // the required query parameters
	media string // "application/json", "multipart/form-data", or "" without a body
	body  []slot // the body's fields, by name
}

// slot is one parameter or field of a sample request and where its value
// comes from: a resource's id, a fresh name, or the contract's example.
type slot struct {
	name string
	// ref is the resource whose id the slot holds: the check's, or one no
	// resource has.
	ref *spec.Resource
	// integer: the id goes as a JSON integer (a body field typed so).
	integer bool
	// uuid: the resource's ids are UUIDs (its path parameter's example
	// is one, D-20), so an unknown one is a UUID too.
	uuid bool
	// fresh: a name of this run (the field is, or is kept as, a name).
	fresh bool
	// files: a multipart file field; value lists fixture file names.
	files bool
	value any
}

// uuidForm is the form of a UUID.
var uuidForm = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// sampleOf reads what c gives to build op's sample request; the error
// says what the contract lacks for it.
func sampleOf(c *spec.Contract, op spec.Operation) (*sample, error) {
	kin, err := c.KinOperation(op.ID)
	if err != nil {
		return nil, err
	}
	s := &sample{op: op, word: "name"}
	if _, r := c.Place(op); r != nil {
		s.word = r.Word()
	}
	params := append(append(openapi3.Parameters{}, c.Kin.Paths.Value(op.Path).Parameters...), kin.Parameters...)
	for _, p := range params {
		if p.Value == nil {
			continue
		}
		pv := p.Value
		switch {
		case pv.In == openapi3.ParameterInPath:
			sl, err := paramSlot(c, pv)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op.ID, err)
			}
			s.path = append(s.path, sl)
		case pv.In == openapi3.ParameterInQuery && pv.Required:
			sl, err := paramSlot(c, pv)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op.ID, err)
			}
			s.query = append(s.query, sl)
		}
	}
	if err := s.readBody(c, op, kin); err != nil {
		return nil, fmt.Errorf("%s: %w", op.ID, err)
	}
	return s, nil
}

// paramSlot is a path or required query parameter's slot: a resource's
// id, a fresh name, or the parameter's example.
func paramSlot(c *spec.Contract, p *openapi3.Parameter) (slot, error) {
	var schema *openapi3.Schema
	if p.Schema != nil {
		schema = p.Schema.Value
	}
	if r := c.ResourceNamed(p.Name); r != nil {
		return slot{name: p.Name, ref: r, uuid: uuidIDs(c, r)}, nil
	}
	if p.In == openapi3.ParameterInQuery && isName(p.Name, schema) {
		return slot{name: p.Name, fresh: true}, nil
	}
	if p.Example != nil {
		return slot{name: p.Name, value: clone(p.Example)}, nil
	}
	if schema != nil && schema.Example != nil {
		return slot{name: p.Name, value: clone(schema.Example)}, nil
	}
	return slot{}, fmt.Errorf("the %s parameter %s names no resource and has no example", p.In, p.Name)
}

// readBody reads the slots of op's request example, when op takes a body.
func (s *sample) readBody(c *spec.Contract, op spec.Operation, kin *openapi3.Operation) error {
	if kin.RequestBody == nil || kin.RequestBody.Value == nil {
		return nil
	}
	var mt *openapi3.MediaType
	for _, media := range []string{"application/json", "multipart/form-data"} {
		if m := kin.RequestBody.Value.Content.Get(media); m != nil && m.Schema != nil && m.Schema.Value != nil {
			s.media, mt = media, m
			break
		}
	}
	if mt == nil {
		return fmt.Errorf("its request body is neither JSON nor a multipart form")
	}
	example, ok := firstExample(mt).(map[string]any)
	if !ok {
		return fmt.Errorf("its %s request body has no example object", s.media)
	}
	schema := mt.Schema.Value
	refs := map[string]spec.Reference{}
	for _, ref := range c.References(op) {
		if ref.In == spec.InBody {
			refs[ref.Name] = ref
		}
	}
	names := slices.Collect(maps.Keys(example))
	for name, ref := range refs {
		if _, in := example[name]; ref.Required && !in {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		var prop *openapi3.Schema
		if p := schema.Properties[name]; p != nil {
			prop = p.Value
		}
		ref, isRef := refs[name]
		switch {
		case isRef && !ref.Required:
			// Whether an optional reference is honoured is another
			// check's: a sample names only what it must.
		case isRef:
			s.body = append(s.body, slot{name: name, ref: ref.Resource, uuid: uuidIDs(c, ref.Resource),
				integer: prop != nil && prop.Type.Is("integer")})
		case isName(name, prop):
			s.body = append(s.body, slot{name: name, fresh: true})
		case s.media == "multipart/form-data" && isFiles(prop):
			files, err := fixtureNames(name, example[name])
			if err != nil {
				return err
			}
			s.body = append(s.body, slot{name: name, files: true, value: files})
		default:
			s.body = append(s.body, slot{name: name, value: clone(example[name])})
		}
	}
	return nil
}

// firstExample is a media type's example: its example, or the first of its
// named examples by name.
func firstExample(mt *openapi3.MediaType) any {
	if mt.Example != nil {
		return mt.Example
	}
	names := make([]string, 0, len(mt.Examples))
	for name := range mt.Examples {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if ex := mt.Examples[name]; ex != nil && ex.Value != nil {
			return ex.Value.Value
		}
	}
	return nil
}

// clone copies a decoded JSON value, so that no request shares (and no
// check can change) the contract's own example.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	}
	return v
}

// isName reports whether a field is a name, so that a sample sends one of
// its run (names may have to be unique, D-19): a field called name, or
// kept as the resource's name (x-stored: {as: name}).
func isName(field string, s *openapi3.Schema) bool {
	if s != nil && !s.Type.Is("string") {
		return false
	}
	if field == "name" {
		return true
	}
	if s == nil {
		return false
	}
	m, _ := s.Extensions["x-stored"].(map[string]any)
	return m != nil && m["as"] == "name"
}

// isFiles reports whether a form field holds file parts: a binary string
// or an array of them.
func isFiles(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	if s.Type.Is("array") && s.Items != nil && s.Items.Value != nil {
		s = s.Items.Value
	}
	return s.Type.Is("string") && s.Format == "binary"
}

// fixtureNames reads a file field's example value, the names of fixture
// files, and checks that each exists.
func fixtureNames(field string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []string
	for _, x := range list {
		name, _ := x.(string)
		if _, err := fixtures.ReadFile(name); err != nil {
			return nil, fmt.Errorf("the example of the file field %s names %v, which is no file of fixtures/files", field, x)
		}
		out = append(out, name)
	}
	return out, nil
}

// uuidIDs reports whether the ids of r are UUIDs: its path parameter's
// example is one (D-20).
func uuidIDs(c *spec.Contract, r *spec.Resource) bool {
	item := c.Kin.Paths.Value(r.Item)
	if item == nil {
		return false
	}
	var params openapi3.Parameters = item.Parameters
	for _, op := range item.Operations() {
		params = append(params, op.Parameters...)
	}
	for _, p := range params {
		if p.Value == nil || p.Value.Name != r.Param || p.Value.In != openapi3.ParameterInPath {
			continue
		}
		ex := p.Value.Example
		if ex == nil && p.Value.Schema != nil && p.Value.Schema.Value != nil {
			ex = p.Value.Schema.Value.Example
		}
		s, _ := ex.(string)
		return uuidForm.MatchString(s)
	}
	return false
}

// sampleRequest is a plausible request for op that the contract accepts,
// built from the contract (sample): each id it names is ids[the resource's
// id parameter] ("model_id"), or an id no resource has when ids has none.
func (e *env) sampleRequest(op spec.Operation, ids map[string]string) client.Request {
	s, err := sampleOf(spec.Strict(), op)
	if err != nil {
		// The operation index (internal/opindex) and this package's
		// tests keep every operation buildable; a contract that is not
		// fails the check that asked, naming what it lacks.
		panic("conformance: no sample request: " + err.Error())
	}
	id := func(sl slot) string {
		if v := ids[sl.ref.Param]; v != "" {
			return v
		}
		if sl.uuid {
			return e.unknownUUID()
		}
		return e.unknownID
	}
	text := func(sl slot) any {
		switch {
		case sl.ref != nil && sl.integer:
			return jsonInt(id(sl))
		case sl.ref != nil:
			return id(sl)
		case sl.fresh:
			return e.name(s.word)
		}
		return sl.value
	}
	p := op.Path
	for _, sl := range s.path {
		// Unescaped: the client's URL escapes the path once.
		p = strings.ReplaceAll(p, "{"+sl.name+"}", fmt.Sprint(text(sl)))
	}
	r := client.Request{Method: strings.ToUpper(op.Method), Path: p}
	if len(s.query) > 0 {
		r.Query = url.Values{}
		for _, sl := range s.query {
			r.Query.Set(sl.name, fmt.Sprint(text(sl)))
		}
	}
	switch s.media {
	case "application/json":
		body := map[string]any{}
		for _, sl := range s.body {
			body[sl.name] = text(sl)
		}
		r.JSON = body
	case "multipart/form-data":
		f := &exchange.Form{}
		for _, sl := range s.body {
			if sl.files {
				for _, name := range sl.value.([]string) {
					file := fixtureFile(name)
					file.Field = sl.name
					f.Files = append(f.Files, file)
				}
				continue
			}
			v := text(sl)
			values, isList := v.([]any)
			if !isList {
				values = []any{v}
			}
			for _, x := range values {
				f.Fields = append(f.Fields, exchange.FormField{Name: sl.name, Value: fmt.Sprint(x)})
			}
		}
		r.Form = f
	}
	return r
}
