package spec

import (
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// The document's marks as kin-openapi reads them: the x-decision mark of
// an element (the row of DECISIONS.md that shaped it) and the x-lenient
// marks of request fields (the readings a server may give a request that
// departs from the seed's tables). Everything that reads a mark goes
// through here.

// Mark reads the x-decision mark among an element's extensions (kin-openapi
// keeps them as decoded JSON); ok is false when it has none.
func Mark(ext map[string]any) (d Decision, ok bool) {
	m, ok := ext["x-decision"].(map[string]any)
	if !ok {
		return Decision{}, false
	}
	d.Row, _ = m["row"].(string)
	d.Class, _ = m["class"].(string)
	d.Relax = stringList(m["relax"])
	return d, true
}

// Reading is one lenient reading the contract decides (an x-lenient mark on
// a request field, D-21): a spelling the seed's usage examples show and its
// tables do not, which a server may read as the declared field. A request
// whose only departures from the declared schema are readings is the
// client's deviation, not a fault a server must refuse.
type Reading struct {
	// Operation is the operationId whose request body the field is in.
	Operation string
	// Field is the declared field ("model_name", "files").
	Field string
	// Alias is another name the field may come under ("name"), "" for a
	// type reading.
	Alias string
	// Type is another JSON type the field's value may come in, read as
	// the declared type when it has that form: "integer" for a string
	// field (12 read as "12"), "string" for an integer field ("7" read as
	// 7). "" for an alias.
	Type string
	// Decision is the DECISIONS.md row that decides the reading.
	Decision string
}

// Readings lists the lenient readings of an operation's request body, by
// field, aliases before types; nil for an operation without any.
func (c *Contract) Readings(operationID string) []Reading {
	op, ok := c.Operation(operationID)
	if !ok {
		return nil
	}
	kin := c.Kin.Paths.Value(op.Path).GetOperation(op.Method)
	if kin == nil || kin.RequestBody == nil || kin.RequestBody.Value == nil {
		return nil
	}
	var out []Reading
	for _, media := range []string{"application/json", "multipart/form-data"} {
		mt := kin.RequestBody.Value.Content.Get(media)
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		out = append(out, readingsOf(operationID, mt.Schema.Value)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Alias != "" && out[j].Alias == "" })
	return out
}

func readingsOf(op string, s *openapi3.Schema) []Reading {
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Reading
	for _, name := range names {
		p := s.Properties[name]
		if p == nil || p.Value == nil {
			continue
		}
		m, ok := p.Value.Extensions["x-lenient"].(map[string]any)
		if !ok {
			continue
		}
		row, _ := m["row"].(string)
		for _, a := range stringList(m["names"]) {
			out = append(out, Reading{Operation: op, Field: name, Alias: a, Decision: row})
		}
		for _, t := range stringList(m["types"]) {
			out = append(out, Reading{Operation: op, Field: name, Type: t, Decision: row})
		}
	}
	return out
}

// stringList reads a JSON list of strings; other values are left out.
func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
