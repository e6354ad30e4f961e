package spec

import (
	"regexp"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The contract's resources as its paths show them, read once per view: a
// collection path whose items have a path of their own,
// collection/{param}, is a resource; an operation's place is what it does
// to one; and a request field or query parameter named like a resource's
// id parameter ("model_id") names a resource of that kind. The explore
// phase's catalog and the conformance suite's per-operation tables (the
// unknown-id checks, the sample requests, the isolation and deletion
// checks) read these, so a new resource or operation needs no list of its
// own in either.

// Resource is one resource of the contract.
type Resource struct {
	// Collection is the path that lists and creates ("/api/v1/user/model").
	Collection string
	// Param is the item path's parameter ("model_id"): the resource's id,
	// and the name under which a request names one.
	Param string
	// Item is the path of one item ("/api/v1/user/model/{model_id}").
	Item string
}

// Word is the resource named in prose: its id parameter without "_id"
// ("model", "conversation").
func (r *Resource) Word() string { return strings.TrimSuffix(r.Param, "_id") }

// Role is what an operation does to its resource.
type Role int

// The roles, from the operation's method and path.
const (
	RoleCreate Role = iota // POST on the collection
	RoleList               // GET on the collection
	RoleGet                // GET on the item
	RoleUpdate             // PUT or PATCH on the item
	RoleDelete             // DELETE on the item
	RoleChild              // any method under the item (start, run-ragas, messages)
	RoleOther              // under no resource (inference, upload, check-name)
)

// Where a request names a resource (Reference.In).
const (
	InPath  = "path"
	InQuery = "query"
	InBody  = "body"
)

// Reference is one place where an operation's request names a resource by
// its id.
type Reference struct {
	// In is InPath, InQuery or InBody (a JSON or multipart body field).
	In string
	// Name is the parameter or field ("dataset_id").
	Name string
	// Required: a path parameter always; a query parameter or a body field
	// when the contract as written requires it.
	Required bool
	// Resource is the resource the id names.
	Resource *Resource
}

var itemPath = regexp.MustCompile(`^(.*)/\{([A-Za-z_]+)\}$`)

// resourcesOf reads the resources of doc, sorted by collection.
func resourcesOf(doc *openapi3.T) []*Resource {
	paths := doc.Paths.Map()
	var out []*Resource
	for p := range paths {
		m := itemPath.FindStringSubmatch(p)
		if m == nil || paths[m[1]] == nil {
			continue
		}
		out = append(out, &Resource{Collection: m[1], Param: m[2], Item: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Collection < out[j].Collection })
	return out
}

// Resources lists the contract's resources, sorted by collection path.
func (c *Contract) Resources() []*Resource { return c.resources }

// ResourceNamed returns the resource whose id parameter is param, nil when
// param names none.
func (c *Contract) ResourceNamed(param string) *Resource {
	for _, r := range c.resources {
		if r.Param == param {
			return r
		}
	}
	return nil
}

// Place returns what op does to its resource, and the resource (nil for
// RoleOther).
func (c *Contract) Place(op Operation) (Role, *Resource) {
	m := strings.ToUpper(op.Method)
	for _, r := range c.resources {
		switch {
		case op.Path == r.Collection && m == "POST":
			return RoleCreate, r
		case op.Path == r.Collection && m == "GET":
			return RoleList, r
		case op.Path == r.Item && m == "GET":
			return RoleGet, r
		case op.Path == r.Item && (m == "PUT" || m == "PATCH"):
			return RoleUpdate, r
		case op.Path == r.Item && m == "DELETE":
			return RoleDelete, r
		case strings.HasPrefix(op.Path, r.Item+"/"):
			return RoleChild, r
		}
	}
	return RoleOther, nil
}

// References lists where op's request names a resource: its path
// parameters that are a resource's id parameter, then its query
// parameters, then its body fields (JSON or multipart) named like one,
// each group sorted by name. A body or query field of op's own resource
// is left out: a create does not name the item it makes, and an item
// operation names its item in the path.
func (c *Contract) References(op Operation) []Reference {
	kin, err := c.KinOperation(op.ID)
	if err != nil {
		return nil
	}
	_, own := c.Place(op)
	var out []Reference
	for _, name := range pathParams(op.Path) {
		if r := c.ResourceNamed(name); r != nil {
			out = append(out, Reference{In: InPath, Name: name, Required: true, Resource: r})
		}
	}
	var query []Reference
	params := append(append(openapi3.Parameters{}, c.Kin.Paths.Value(op.Path).Parameters...), kin.Parameters...)
	for _, p := range params {
		if p.Value == nil || p.Value.In != openapi3.ParameterInQuery {
			continue
		}
		if r := c.ResourceNamed(p.Value.Name); r != nil && r != own {
			query = append(query, Reference{In: InQuery, Name: p.Value.Name, Required: p.Value.Required, Resource: r})
		}
	}
	sort.Slice(query, func(i, j int) bool { return query[i].Name < query[j].Name })
	out = append(out, query...)
	if body := requestBodySchema(kin); body != nil {
		names := make([]string, 0, len(body.Properties))
		for name := range body.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if r := c.ResourceNamed(name); r != nil && r != own {
				req := false
				for _, n := range body.Required {
					req = req || n == name
				}
				out = append(out, Reference{In: InBody, Name: name, Required: req, Resource: r})
			}
		}
	}
	return out
}

// pathParams are the parameters of a path template, in order.
func pathParams(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, seg[1:len(seg)-1])
		}
	}
	return out
}

// requestBodySchema is the schema of op's JSON or multipart body, nil
// without one.
func requestBodySchema(op *openapi3.Operation) *openapi3.Schema {
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	for _, media := range []string{"application/json", "multipart/form-data"} {
		if mt := op.RequestBody.Value.Content.Get(media); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
			return mt.Schema.Value
		}
	}
	return nil
}
