package spec

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fastCheck says, for the requests of one operation, when a part of a
// request (its path parameters, its query, its JSON body) is sure to pass
// libopenapi-validator's check of that part, without running it. Like
// ResponseCheck it only ever says "passes": the schemas are the very ones
// the validator compiled (its schema cache, warmed when the contract is
// built), applied to the value the validator would apply them to, and
// anything it is not sure of goes to the validator, whose verdict and
// problems are then the answer. What it saves is the validator's work
// around the schema: hashing the schema to find its compiled form on every
// request, rendering it for messages, splitting the path again, copying and
// decoding the body twice.
type fastCheck struct {
	// segments is the path template split at "/", and pathParams the
	// schema of each "{name}" segment the validator checks; pathOK is
	// false when the template or a parameter is of a kind the fast check
	// does not model (the validator judges every request's path then).
	segments   []string
	pathParams []pathParam
	pathOK     bool
	// queryOK: a request without a query passes the query check (no
	// query parameter is required, each has a schema).
	queryOK bool
	// body is the compiled schema of the application/json body; nil when
	// the operation has none or it was not found.
	body *jsonschema.Schema
}

type pathParam struct {
	segment int
	schema  *jsonschema.Schema
}

// fastJSON is the one media type whose body the fast check judges: the
// validator decodes it with encoding/json (its JSON decoder).
const fastJSON = "application/json"

// newFastCheck reads the compiled schemas of op's parameters and JSON body
// from the validator's schema cache sc. params are op's parameters as the
// validator gathers them (the path item's, then the operation's).
func newFastCheck(sc cache.SchemaCache, doc *v3.Document, path string, op *v3.Operation, params []*v3.Parameter) fastCheck {
	f := fastCheck{segments: strings.Split(path, "/"), pathOK: rootServer(doc), queryOK: true}
	for _, p := range params {
		switch p.In {
		case "query":
			if p.Schema == nil || p.Required != nil && *p.Required {
				f.queryOK = false
			}
		case "path":
			if !f.pathOK {
				continue
			}
			i := slices.Index(f.segments, "{"+p.Name+"}")
			s := paramSchema(sc, p)
			switch {
			case i < 0 && strings.Contains(path, p.Name):
				f.pathOK = false // a template the fast check does not model ("{.name}", "{name*}", "a{name}b")
			case i < 0:
				// Not in the template: the validator checks nothing.
			case s == nil:
				f.pathOK = false
			default:
				f.pathParams = append(f.pathParams, pathParam{segment: i, schema: s})
			}
		}
	}
	// A segment holding a brace that is not one of the parameters taken
	// above is one the validator may read otherwise.
	for i, seg := range f.segments {
		if strings.ContainsAny(seg, "{}") && !slices.ContainsFunc(f.pathParams, func(p pathParam) bool { return p.segment == i }) {
			f.pathOK = false
		}
	}
	if op.RequestBody != nil && op.RequestBody.Content != nil {
		if mt, ok := op.RequestBody.Content.Get(fastJSON); ok && mt != nil && mt.Schema != nil {
			if s := mt.Schema.Schema(); s != nil && s.GoLow() != nil {
				key := schema_validation.SchemaCacheKey(s.GoLow().Hash(), helpers.VersionToFloat(doc.Version), schema_validation.SchemaValidationPurposeRequestBody)
				if e, ok := sc.Load(key); ok && e != nil {
					f.body = e.CompiledSchema
				}
			}
		}
	}
	return f
}

// paramSchema is the compiled schema the validator applies to a path
// parameter whose value it passes as the string sent: a string schema
// without enum (the validator checks an enum itself, and converts a number,
// integer or boolean first). nil: not one the fast check judges.
func paramSchema(sc cache.SchemaCache, p *v3.Parameter) *jsonschema.Schema {
	if p.Schema == nil {
		return nil
	}
	s := p.Schema.Schema()
	if s == nil || s.GoLow() == nil || !slices.Equal(s.Type, []string{"string"}) || s.Enum != nil {
		return nil
	}
	// Parameter schemas are cached under their hash alone, whatever the
	// version (SchemaCacheKey of the generic purpose).
	e, ok := sc.Load(schema_validation.SchemaCacheKey(s.GoLow().Hash(), 0, schema_validation.SchemaValidationPurposeGeneric))
	if !ok || e == nil {
		return nil
	}
	return e.CompiledSchema
}

// rootServer reports whether the validator's path is the request's escaped
// path as it is: the document's servers strip no base path.
func rootServer(doc *v3.Document) bool {
	for _, s := range doc.Servers {
		if s.URL != "/" {
			return false
		}
	}
	return true
}

// pathPasses reports whether the validator's path parameter check is sure
// to accept r.
func (f *fastCheck) pathPasses(r *http.Request) bool {
	if !f.pathOK || r.URL.Fragment != "" {
		return false
	}
	p := r.URL.EscapedPath()
	if strings.Count(p, "/") != len(f.segments)-1 {
		return false
	}
	for _, pp := range f.pathParams {
		seg := nthSegment(p, pp.segment)
		v, err := url.PathUnescape(seg)
		if err != nil || v == "" || pp.schema.Validate(v) != nil {
			return false
		}
	}
	return true
}

// nthSegment is the i-th "/"-separated segment of p (strings.Split(p,
// "/")[i], without the slice).
func nthSegment(p string, i int) string {
	for ; i > 0; i-- {
		j := strings.IndexByte(p, '/')
		if j < 0 {
			return ""
		}
		p = p[j+1:]
	}
	if j := strings.IndexByte(p, '/'); j >= 0 {
		return p[:j]
	}
	return p
}

// queryPasses reports whether the validator's query check is sure to
// accept r: it has no query and none is required.
func (f *fastCheck) queryPasses(r *http.Request) bool {
	return f.queryOK && r.URL.RawQuery == ""
}

// bodyPasses reports whether the validator's body check is sure to accept
// body, sent with r's Content-Type: a JSON body its compiled schema
// accepts, decoded as the validator decodes it (encoding/json into an any;
// its canonical form already).
func (f *fastCheck) bodyPasses(r *http.Request, body []byte) bool {
	if f.body == nil || len(body) == 0 {
		return false
	}
	// The validator's media type is mime.ParseMediaType's (lower-cased,
	// without parameters); the plain header is taken without its map.
	if ct := r.Header.Get("Content-Type"); ct != fastJSON {
		if mt, _, _ := helpers.ExtractContentType(ct); mt != fastJSON {
			return false
		}
	}
	var v any
	if json.Unmarshal(body, &v) != nil || v == nil {
		return false
	}
	return f.body.Validate(v) == nil
}
