package wire

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// The Go type is the contract's shape: the same JSON fields, each of a Go
// type that holds what the schema allows (null where it is nullable or may
// be absent), objects checked the same way below.

// differences lists, one line each, how the Go type t differs from the
// schema s (written at where): a property without a field, a field
// without a property, a field of a type that cannot hold the property's
// values.
func differences(t reflect.Type, s *openapi3.Schema, where string) []string {
	var out []string
	fields := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			out = append(out, fmt.Sprintf("%s: field %s.%s has no JSON name", where, t.Name(), f.Name))
			continue
		}
		fields[name] = f
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, ok := fields[name]
		if !ok {
			out = append(out, fmt.Sprintf("%s/properties/%s: no field of %s", where, name, t.Name()))
			continue
		}
		optional := !slices.Contains(s.Required, name)
		out = append(out, holds(f.Type, s.Properties[name], optional, where+"/properties/"+name)...)
	}
	for name, f := range fields {
		if s.Properties[name] == nil {
			out = append(out, fmt.Sprintf("%s: field %s.%s (%q) is no property of the contract", where, t.Name(), f.Name, name))
		}
	}
	sort.Strings(out)
	return out
}

// holds says how a field of Go type g cannot hold the values of the schema
// ref (nothing when it can): null when the schema is nullable or the field
// optional, then the type itself.
func holds(g reflect.Type, ref *openapi3.SchemaRef, optional bool, where string) []string {
	s := ref.Value
	if len(s.AllOf) == 1 && len(s.Properties) == 0 {
		s = s.AllOf[0].Value // a wrapper that carries a mark beside a reference
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		if g.Kind() != reflect.Interface {
			return []string{fmt.Sprintf("%s: any JSON value, held in %s (want any)", where, g)}
		}
		return nil
	}
	if s.Nullable || optional {
		switch g.Kind() {
		case reflect.Pointer:
			g = g.Elem()
		case reflect.Interface, reflect.Slice, reflect.Map:
		default:
			return []string{fmt.Sprintf("%s: may be null or absent, held in %s (want a pointer)", where, g)}
		}
	} else if g.Kind() == reflect.Pointer {
		return []string{fmt.Sprintf("%s: always there and never null, held in %s (want a value)", where, g)}
	}
	want := map[string][]reflect.Kind{
		"integer": {reflect.Int, reflect.Int32, reflect.Int64},
		"number":  {reflect.Float64},
		"string":  {reflect.String},
		"boolean": {reflect.Bool},
		"array":   {reflect.Slice},
		"object":  {reflect.Struct, reflect.Map},
	}
	typ := ""
	if s.Type != nil && len(s.Type.Slice()) == 1 {
		typ = s.Type.Slice()[0]
	}
	switch {
	case typ == "string" && s.Format == "date-time":
		if g != reflect.TypeFor[time.Time]() {
			return []string{fmt.Sprintf("%s: a date-time, held in %s (want time.Time)", where, g)}
		}
	case typ == "object" && g.Kind() == reflect.Struct:
		return differences(g, s, strings.TrimPrefix(ref.Ref, "#"))
	case !slices.Contains(want[typ], g.Kind()):
		return []string{fmt.Sprintf("%s: a JSON %s, held in %s", where, typ, g)}
	}
	return nil
}

// modelSchema is the contract's Model schema, of doc.
func modelSchema(doc *openapi3.T) *openapi3.Schema { return doc.Components.Schemas["Model"].Value }

func TestModelIsTheContractsModel(t *testing.T) {
	doc := spec.Strict().Kin
	for _, d := range differences(reflect.TypeFor[Model](), modelSchema(doc), "/components/schemas/Model") {
		t.Error(d)
	}
}

// The check is not vacuous: a property added to the contract's Model, a
// field it lacks, or a type that cannot hold a value, is named.
func TestADriftIsNamed(t *testing.T) {
	raw := strings.Replace(string(spec.Document),
		"        updated_at: { type: string, format: date-time, nullable: true, default: null, x-predict: { rule: time, kind: updated, after: [created_at], decision: D-34 } }\n",
		"        updated_at: { type: string, format: date-time, nullable: true, default: null, x-predict: { rule: time, kind: updated, after: [created_at], decision: D-34 } }\n        owner: { type: string, nullable: true }\n", 1)
	if raw == string(spec.Document) {
		t.Fatal("the contract no longer has the line this test extends")
	}
	doc, err := openapi3.NewLoader().LoadFromData([]byte(raw))
	if err == nil {
		err = doc.Validate(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	got := differences(reflect.TypeFor[Model](), modelSchema(doc), "/components/schemas/Model")
	if want := []string{"/components/schemas/Model/properties/owner: no field of Model"}; !slices.Equal(got, want) {
		t.Errorf("an added property: got %q, want %q", got, want)
	}

	type drifted struct {
		ID      *int64   `json:"id"`
		Name    string   `json:"name"`
		Status  string   `json:"status"`
		Metrics *Metrics `json:"metrics"`
		Owner   string   `json:"owner"`
	}
	got = differences(reflect.TypeFor[drifted](), modelSchema(spec.Strict().Kin), "/components/schemas/Model")
	for _, want := range []string{
		"/components/schemas/Model/properties/id: always there and never null, held in *int64 (want a value)",
		"/components/schemas/Model/properties/status: may be null or absent, held in string (want a pointer)",
		"/components/schemas/Model/properties/category: no field of drifted",
		`/components/schemas/Model: field drifted.Owner ("owner") is no property of the contract`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("a drifted type: %q does not name\n%s", got, want)
		}
	}
}
