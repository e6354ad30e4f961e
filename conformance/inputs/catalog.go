package inputs

import (
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// Role is what an operation does to its resource.
type Role int

// The roles, from the operation's method and path.
const (
	RoleOther  Role = iota // under no resource (inference, upload, check-name)
	RoleCreate             // POST on the collection
	RoleList               // GET on the collection
	RoleGet                // GET on the item
	RoleUpdate             // PUT or PATCH on the item
	RoleDelete             // DELETE on the item
	RoleAction             // POST (or another write) under the item: start, run-ragas
	RoleChild              // GET under the item: a list of the item's collection
)

// Catalog is the contract as a driver varies it: its operations, its
// resources, and the order of its faults.
type Catalog struct {
	// Ops are every operation, sorted by operationId.
	Ops []*Op
	// Kinds are the resources, sorted by their id parameter.
	Kinds []*Kind
	// Faults are the faults a request may have, in the order whose first
	// wins (x-fault-order, D-48).
	Faults []FaultRank
	// JSONBodyBytes and MultipartBodyBytes are the body bounds past which
	// a server answers 413 (x-request-limits, D-15).
	JSONBodyBytes, MultipartBodyBytes int64

	byID    map[string]*Op
	byParam map[string]*Kind
}

// Op returns the operation called id, nil when there is none.
func (c *Catalog) Op(id string) *Op { return c.byID[id] }

// Kind returns the resource whose id parameter is param, nil when none.
func (c *Catalog) Kind(param string) *Kind { return c.byParam[param] }

// Op is one operation of the contract.
type Op struct {
	ID, Method, Path string
	Role             Role
	// Kind is its resource (nil for RoleOther); Coll the collection a
	// child list lists ("messages").
	Kind *Kind
	Coll string
	// Media is the request body's media type ("" without a body);
	// BodyRequired whether the contract requires one.
	Media        string
	BodyRequired bool
	// Fields are the request's fields other than path parameters: query
	// parameters, then body fields (nested ones by their dotted path, an
	// array's item fields under "name[]"), sorted within each.
	Fields []*Field
	// IDs are the fields that name a resource by its id: path parameters,
	// then query, body and form fields named like a resource's parameter.
	IDs []*Field
	// Files is the multipart field of file parts, nil without one.
	Files *Field
	// Effects are its x-effect entries; Rules its x-refuse entries;
	// Groups its x-alternatives groups (the body's and the operation's).
	Effects []Effect
	Rules   []Rule
	Groups  []Group
	// Statuses are its documented statuses, sorted.
	Statuses []int
	// Answers are the media types of its 200 answer, in the order its
	// x-negotiate mark gives (D-04), or the document's single one.
	Answers []string
	// Cost is its x-cost kind ("" none).
	Cost string
	// Holds are the request fields its answer compares with a field of a
	// kind's resources (transport.go).
	Holds []Holder
	// Readings are its request's x-lenient readings (D-21).
	Readings []spec.Reading
}

// Writes reports whether the operation changes something (any method but
// GET).
func (o *Op) Writes() bool { return o.Method != "GET" }

// Documents reports whether the operation documents the status code.
func (o *Op) Documents(code int) bool { return slices.Contains(o.Statuses, code) }

// Stream reports whether its 200 answer may be an event stream.
func (o *Op) Stream() bool { return slices.Contains(o.Answers, "text/event-stream") }

// Field returns the field of the operation at loc ("body:title",
// "query:limit", "path:model_id"), nil when it has none.
func (o *Op) Field(loc string) *Field {
	for _, f := range slices.Concat(o.IDs, o.Fields) {
		if f.Loc() == loc {
			return f
		}
	}
	return nil
}

// Field is one value a request carries.
type Field struct {
	// In is "path", "query", "body" (a JSON body) or "form" (a multipart
	// body); Name its name, dotted below the body's top level
	// ("image_parameters.width", "samples[].question").
	In, Name string
	// Schema is its schema as written, Declared under the declared view
	// (decided constraints removed).
	Schema, Declared *openapi3.Schema
	// Required: the contract as written requires it (where its parent is
	// present); DeclaredRequired: its declared view does too.
	Required, DeclaredRequired bool
	// Kind is the resource it names by id, nil when it names none.
	Kind *Kind
	// Split is its x-split mark (a text the server splits into a list).
	Split *spec.Split
	// Named are the values the reference itself names for it: its enum
	// when the reference states it, an x-named mark's values.
	Named []any
	// Lenient are the JSON types a server may read as its type (x-lenient
	// types, D-21).
	Lenient []string
	// Paging is how a list parameter pages (x-paging: "size", "offset",
	// "page"; "" none).
	Paging string
	// Stored is the record field it is kept in (x-stored as; its own name
	// by default; "" when it is not kept as sent).
	Stored string
}

// Loc is where the field stands: "body:title".
func (f *Field) Loc() string { return f.In + ":" + f.Name }

// Top is the top-level field it belongs to ("image_parameters" for
// "image_parameters.width").
func (f *Field) Top() string {
	name := f.Name
	if i := strings.IndexAny(name, ".["); i >= 0 {
		name = name[:i]
	}
	return name
}

// Type is its schema's single type ("" when it states none or several).
func (f *Field) Type() string { return schemaType(f.Schema) }

func schemaType(s *openapi3.Schema) string {
	if s == nil || s.Type == nil || len(s.Type.Slice()) != 1 {
		return ""
	}
	return s.Type.Slice()[0]
}

// Kind is one resource of the contract.
type Kind struct {
	// Param is its id parameter ("model_id").
	Param string
	// IDForm is how its ids are written: "number", "uuid" or "text".
	IDForm string
	// Create, List and Get are its operations of those roles (nil when it
	// has none); Deletes, Updates, Actions and Children the others.
	Create, List, Get, Delete  *Op
	Updates, Actions, Children []*Op
	// Scope is the query parameter its list is restricted by ("model_id"
	// for conversations), "" when the list is whole.
	Scope string
	// Machine is its state machine (the field an x-effect reads), nil
	// without one.
	Machine *Machine
	// Colls are the collections its records hold ("messages", "files").
	Colls []string
	// Refs are its records' fields that name another resource.
	Refs []Ref

	collection, item string
	// unique are its record fields no two live records share.
	unique map[string]bool
}

// Word is the resource named in prose ("model").
func (k *Kind) Word() string { return strings.TrimSuffix(k.Param, "_id") }

// Machine is a state field's machine (x-transitions).
type Machine struct {
	Field string
	// States are every state it names, sorted; Initial those a record
	// starts in; Clock the moves the server makes on its own.
	States, Initial []string
	Clock           map[string][]string
}

// Ref is a record field naming another resource, and what a delete of
// that resource does to the record (x-predict on-delete: cascade, keep).
type Ref struct {
	Field    string
	Kind     *Kind
	OnDelete string
}

// Read builds the catalog of c (the contract as written) and its declared
// view d.
func Read(c, d *spec.Contract) *Catalog {
	cat := &Catalog{byID: map[string]*Op{}, byParam: map[string]*Kind{},
		JSONBodyBytes: c.Limits.JSONBodyBytes, MultipartBodyBytes: c.Limits.MultipartBodyBytes}
	for _, r := range c.Resources() {
		k := &Kind{Param: r.Param, collection: r.Collection, item: r.Item}
		cat.Kinds = append(cat.Kinds, k)
		cat.byParam[k.Param] = k
	}
	for _, sop := range c.Operations {
		op := cat.readOp(c, d, sop)
		cat.Ops = append(cat.Ops, op)
		cat.byID[op.ID] = op
	}
	sort.Slice(cat.Ops, func(i, j int) bool { return cat.Ops[i].ID < cat.Ops[j].ID })
	for _, k := range cat.Kinds {
		cat.describe(c, k)
	}
	cat.readHolders(c)
	cat.Faults = faultOrder(c.Kin)
	return cat
}

// place finds what an operation does to which resource.
func (c *Catalog) place(path, method string) (Role, *Kind, string) {
	for _, k := range c.Kinds {
		col, item := k.collection, k.item
		switch {
		case path == col && method == "POST":
			return RoleCreate, k, ""
		case path == col && method == "GET":
			return RoleList, k, ""
		case path == item && method == "GET":
			return RoleGet, k, ""
		case path == item && (method == "PUT" || method == "PATCH"):
			return RoleUpdate, k, ""
		case path == item && method == "DELETE":
			return RoleDelete, k, ""
		case strings.HasPrefix(path, item+"/") && method == "GET":
			return RoleChild, k, strings.TrimPrefix(path, item+"/")
		case strings.HasPrefix(path, item+"/"):
			return RoleAction, k, ""
		}
	}
	return RoleOther, nil, ""
}
