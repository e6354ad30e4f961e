package inputs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// The last input dimensions: how a request is carried (a body chunked or
// after Expect: 100-continue, a space in the query written + and %20, path
// ids percent-encoded: RFC 9110, RFC 9112, RFC 3986, D-49), text from every
// Unicode plane written through every text field and read back through
// every answer that shows it, and a name a resource holds asked about in
// each state of the holder and in another letter case (D-19).

// The transport and text tricks of encoding dimensions.
const (
	TrickChunked      = "chunked"               // the body sent chunked, without Content-Length
	TrickContinue     = "expect-continue"       // Expect: 100-continue before the body
	TrickSpacePercent = "space-percent"         // a space in a query text written %20
	TrickSpacePlus    = "space-plus"            // a space in a query text written +
	TrickEscapedPath  = "escaped-path"          // every byte of the path ids percent-encoded
	TrickPlanes       = "unicode-planes"        // a text field written with text from every Unicode plane
	TrickPlanesRead   = "unicode-planes-read"   // such text read back by the operation
	TrickPlanesQuoted = "unicode-planes-quoted" // an answer stream quoting such text
)

// PlanesQuoted names the dimension of a stream quoting text from every
// plane (the file a quoting answer reads holds such text).
const PlanesQuoted = "an answer quoting text from every Unicode plane"

// Holder is a request field an answer compares with a field of the
// resources of a kind (an x-predict mark with param, of and field: the
// name check's name, held by evaluations).
type Holder struct {
	// Field is the request field ("query:name"); Kind the resource whose
	// Held field ("name") it is compared with.
	Field string
	Kind  *Kind
	Held  string
	// Fold: the comparison ignores letter case (the held field is unique
	// case-insensitively).
	Fold bool
}

// wireDims are op's transport and text dimensions.
func wireDims(op *Op) []Dimension {
	var out []Dimension
	trick := func(name, trick, field string) {
		out = append(out, Dimension{Family: FamilyEncoding, Name: name, Field: field, Encoding: &Encoding{Trick: trick, Field: field}})
	}
	if op.Media != "" {
		trick("a body sent chunked (no Content-Length)", TrickChunked, "")
		trick("a body sent after Expect: 100-continue", TrickContinue, "")
	}
	for _, f := range op.Fields {
		if f.In == "query" && f.Type() == "string" && len(f.Schema.Enum) == 0 {
			trick(f.Loc()+" with a space written %20", TrickSpacePercent, f.Loc())
			trick(f.Loc()+" with a space written +", TrickSpacePlus, f.Loc())
		}
	}
	for _, f := range op.IDs {
		if f.In == "path" {
			trick("path ids percent-encoded", TrickEscapedPath, "")
			break
		}
	}
	for _, f := range PlanesFields(op) {
		trick(f.Loc()+" = text from every Unicode plane", TrickPlanes, f.Loc())
	}
	if op.Kind != nil && (op.Role == RoleGet || op.Role == RoleList || op.Role == RoleChild) {
		trick("text from every Unicode plane read back", TrickPlanesRead, "")
	}
	if op.Stream() {
		trick(PlanesQuoted, TrickPlanesQuoted, "")
	}
	return out
}

// PlanesFields are the text fields of op that may carry any text: its
// query, body and form strings that are no id, no enum member, none whose
// values the reference names (x-named), no list the server splits and of
// no format.
func PlanesFields(op *Op) []*Field {
	var out []*Field
	for _, f := range op.Fields {
		if f.Type() != "string" || f.Kind != nil || f == op.Files || f.Split != nil || len(f.Named) > 0 || f.Schema.Format != "" ||
			strings.ContainsAny(f.Name, ".[") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// nameDims: each request field a resource holds (a Holder), set to what
// a resource in each state of its machine holds, and to what one holds in
// another letter case when the comparison ignores case.
func nameDims(op *Op) []Dimension {
	var out []Dimension
	for _, h := range op.Holds {
		k := h.Kind
		if m := k.Machine; m != nil {
			for _, s := range m.States {
				st := State{Field: m.Field, Value: s}
				out = append(out, Dimension{Family: FamilyState, Field: h.Field, Kind: k, State: st,
					Name: fmt.Sprintf("%s = the %s of %s", h.Field, h.Held, StateName(k, st))})
			}
		}
		if h.Fold {
			out = append(out, Dimension{Family: FamilyState, Field: h.Field, Kind: k,
				Name: fmt.Sprintf("%s = a %s's %s in another letter case", h.Field, k.Word(), h.Held)})
		}
	}
	return out
}

// readHolders finds, for each operation, the request fields its answer
// compares with a field of a kind's resources (x-predict param, of, field).
func (c *Catalog) readHolders(sc *spec.Contract) {
	for _, op := range c.Ops {
		data := answerData(sc, op)
		if data == nil {
			continue
		}
		props := data.Properties
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if h, ok := c.holder(sc, props[name]); ok && op.Field(h.Field) != nil {
				op.Holds = append(op.Holds, h)
			}
		}
	}
}

// holder reads one answer property's x-predict mark as a Holder.
func (c *Catalog) holder(sc *spec.Contract, p *openapi3.SchemaRef) (Holder, bool) {
	if p == nil || p.Value == nil {
		return Holder{}, false
	}
	mark, _ := p.Value.Extensions["x-predict"].(map[string]any)
	k := c.byParam[str(mark["of"])]
	param, held := str(mark["param"]), str(mark["field"])
	if k == nil || param == "" || held == "" || !strings.Contains(param, ":") {
		return Holder{}, false
	}
	h := Holder{Field: param, Kind: k, Held: held}
	if rec := c.recordOf(sc, k); rec != nil && rec.Properties[held] != nil && rec.Properties[held].Value != nil {
		rm, _ := unwrap(rec.Properties[held].Value).Extensions["x-predict"].(map[string]any)
		h.Fold = str(rm["unique"]) == "case-insensitive"
	}
	return h, true
}
