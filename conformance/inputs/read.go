package inputs

import (
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// Effect is one x-effect entry of an operation: what an action needs and
// does (rule state: the states that refuse it and the state it moves to;
// exchange, files, scores: what it writes into another resource).
type Effect struct {
	Rule string
	// Target is the resource whose state it reads (rule state), Into the
	// one it writes into (exchange, files): id parameters.
	Target, Into string
	// State is the state field; RefusedIn the states that refuse it,
	// AllowedIn those the reference allows it in, To where it moves.
	State                    string
	RefusedIn, AllowedIn, To []string
	// Status is the status of its refusal; Unless the parameter that
	// turns a soft delete into a permanent one ("query:permanent").
	Status int
	Unless string
	// Question is the request field an exchange stores as the question.
	Question string
}

// Rule is one x-refuse entry: a refusal no schema keyword states.
type Rule struct {
	Rule string
	// Field is the request field it stands on ("" the whole request).
	Field string
	// Params are its parameters (field, of, urls, ...).
	Params map[string]any
	Status int
	// Reads: the rule reads the resources (a conversation of another
	// model), not the request alone; it is a conflict, not a rule fault.
	Reads bool
}

// Group is one x-alternatives group: fields of which at least one must be
// given.
type Group struct {
	// Members are the fields' locations ("form:files", "query:title").
	Members []string
	// Wins is the member read when several are given ("" not stated).
	Wins     string
	Decision string
}

// readOp reads one operation of c (d is the declared view).
func (c *Catalog) readOp(sc, sd *spec.Contract, so spec.Operation) *Op {
	method := strings.ToUpper(so.Method)
	item := sc.Kin.Paths.Value(so.Path)
	kin := item.GetOperation(method)
	var decl *openapi3.Operation
	if di := sd.Kin.Paths.Value(so.Path); di != nil {
		decl = di.GetOperation(method)
	}
	op := &Op{ID: so.ID, Method: method, Path: so.Path}
	op.Role, op.Kind, op.Coll = c.place(so.Path, method)
	if so.Cost != nil {
		op.Cost = string(so.Cost.Kind)
	}
	for _, s := range so.Statuses {
		if n, err := strconv.Atoi(s); err == nil {
			op.Statuses = append(op.Statuses, n)
		}
	}
	params := append(append(openapi3.Parameters{}, item.Parameters...), kin.Parameters...)
	var dparams openapi3.Parameters
	if decl != nil {
		dparams = append(append(openapi3.Parameters{}, sd.Kin.Paths.Value(so.Path).Parameters...), decl.Parameters...)
	}
	var query []*Field
	for _, p := range params {
		if p.Value == nil {
			continue
		}
		f := &Field{In: p.Value.In, Name: p.Value.Name, Required: p.Value.Required || p.Value.In == "path"}
		if p.Value.Schema != nil {
			f.Schema = p.Value.Schema.Value
		}
		if dp := dparams.GetByInAndName(p.Value.In, p.Value.Name); dp != nil && dp.Schema != nil {
			f.Declared = dp.Schema.Value
			f.DeclaredRequired = dp.Required || dp.In == "path"
		}
		f.Named = namedValues(f.Schema, p.Value.Extensions)
		f.Paging = str(p.Value.Extensions["x-paging"])
		switch {
		case p.Value.In == "path":
			f.Kind = c.byParam[f.Name]
			if f.Kind != nil {
				op.IDs = append(op.IDs, f)
			}
		case p.Value.In == "query":
			if k := c.byParam[f.Name]; k != nil && k != op.Kind {
				f.Kind = k
				op.IDs = append(op.IDs, f)
				continue
			}
			query = append(query, f)
		}
	}
	sort.Slice(query, func(i, j int) bool { return query[i].Name < query[j].Name })
	op.Fields = append(op.Fields, query...)
	media, body := requestBody(kin)
	_, dbody := requestBody(decl)
	op.Media = media
	if kin.RequestBody != nil && kin.RequestBody.Value != nil {
		op.BodyRequired = kin.RequestBody.Value.Required
	}
	if body != nil {
		in := "body"
		if media == "multipart/form-data" {
			in = "form"
		}
		c.walkBody(op, in, "", body, dbody, true)
		op.Rules = append(op.Rules, readRules(c, body.Extensions, "")...)
		op.Groups = append(op.Groups, readGroups(body.Extensions, in)...)
	}
	op.Rules = append(op.Rules, readRules(c, kin.Extensions, "")...)
	op.Groups = append(op.Groups, readGroups(kin.Extensions, "body")...)
	op.Effects = readEffects(kin.Extensions)
	op.Answers = answers(kin)
	op.Readings = sc.Readings(so.ID)
	return op
}

// walkBody adds the fields of a body schema s (d its declared view) under
// prefix; top says whether they stand at the body's top level.
func (c *Catalog) walkBody(op *Op, in, prefix string, s, d *openapi3.Schema, top bool) {
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ref := s.Properties[name]
		if ref == nil || ref.Value == nil {
			continue
		}
		ps := ref.Value
		var pd *openapi3.Schema
		if d != nil && d.Properties[name] != nil {
			pd = d.Properties[name].Value
		}
		f := &Field{In: in, Name: prefix + name, Schema: ps, Declared: pd, Stored: name}
		if st, ok := ps.Extensions["x-stored"].(map[string]any); ok {
			switch {
			case st["none"] != nil:
				f.Stored = ""
			case str(st["as"]) != "":
				f.Stored = str(st["as"])
			}
		}
		for _, r := range s.Required {
			f.Required = f.Required || r == name
		}
		if d != nil {
			for _, r := range d.Required {
				f.DeclaredRequired = f.DeclaredRequired || r == name
			}
		}
		f.Named = namedValues(ps)
		if sp, ok, err := spec.SplitOf(ps); ok && err == nil {
			f.Split = &sp
		}
		if l, ok := ps.Extensions["x-lenient"].(map[string]any); ok {
			f.Lenient = strList(l["types"])
		}
		if k := c.byParam[name]; top && k != nil && k != op.Kind {
			f.Kind = k
			op.IDs = append(op.IDs, f)
			op.Rules = append(op.Rules, readRules(c, ps.Extensions, f.Name)...)
			continue
		}
		if it := ps.Items; it != nil && it.Value != nil && it.Value.Format == "binary" {
			op.Files = f
		}
		op.Fields = append(op.Fields, f)
		op.Rules = append(op.Rules, readRules(c, ps.Extensions, f.Name)...)
		switch {
		case len(ps.Properties) > 0:
			c.walkBody(op, in, f.Name+".", ps, pd, false)
		case ps.Items != nil && ps.Items.Value != nil && len(ps.Items.Value.Properties) > 0:
			var di *openapi3.Schema
			if pd != nil && pd.Items != nil {
				di = pd.Items.Value
			}
			c.walkBody(op, in, f.Name+"[].", ps.Items.Value, di, false)
		}
	}
}

// requestBody is an operation's body media type and schema ("", nil
// without one).
func requestBody(op *openapi3.Operation) (string, *openapi3.Schema) {
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return "", nil
	}
	for _, media := range []string{"application/json", "multipart/form-data"} {
		if mt := op.RequestBody.Value.Content.Get(media); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
			return media, mt.Schema.Value
		}
	}
	return "", nil
}

// namedValues are the values the reference names for a field: its enum
// and the values of x-named marks (on the schema, or on the parameter
// that carries it).
func namedValues(s *openapi3.Schema, marks ...map[string]any) []any {
	var out []any
	if s != nil {
		out = append(out, s.Enum...)
		marks = append(marks, s.Extensions)
	}
	for _, ext := range marks {
		if n, ok := ext["x-named"].(map[string]any); ok {
			for _, v := range strList(n["values"]) {
				if !containsAny(out, v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func containsAny(list []any, v any) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// readEffects reads an x-effect list.
func readEffects(ext map[string]any) []Effect {
	var out []Effect
	for _, raw := range list(ext["x-effect"]) {
		m, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		e := Effect{Rule: str(m["rule"]), Target: str(m["target"]), Into: str(m["into"]), State: str(m["state"]),
			RefusedIn: strList(m["refused-in"]), AllowedIn: strList(m["allowed-in"]), To: strList(m["to"]), Unless: str(m["unless"]),
			Question: str(m["question"])}
		if r, ok := m["refuse"].(map[string]any); ok {
			e.Status = intOf(r["status"])
		}
		out = append(out, e)
	}
	return out
}

// readRules reads an x-refuse list standing on field ("" the request).
func readRules(c *Catalog, ext map[string]any, field string) []Rule {
	var out []Rule
	for _, raw := range list(ext["x-refuse"]) {
		m, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		r := Rule{Rule: str(m["rule"]), Field: field, Params: m, Status: intOf(m["status"])}
		if f := str(m["field"]); f != "" && c.byParam[f] != nil {
			r.Reads = true
		}
		out = append(out, r)
	}
	return out
}

// readGroups reads an x-alternatives list; a member without a location is
// a field of the body (in).
func readGroups(ext map[string]any, in string) []Group {
	var out []Group
	for _, raw := range list(ext["x-alternatives"]) {
		m, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		g := Group{Wins: str(m["wins"]), Decision: str(m["decision"])}
		for _, name := range strList(m["at-least-one"]) {
			if !strings.Contains(name, ":") {
				name = in + ":" + name
			}
			g.Members = append(g.Members, name)
		}
		if g.Wins != "" && !strings.Contains(g.Wins, ":") {
			g.Wins = in + ":" + g.Wins
		}
		out = append(out, g)
	}
	return out
}

// answers are the media types of an operation's 200 answer, in its
// x-negotiate order.
func answers(op *openapi3.Operation) []string {
	r := op.Responses.Value("200")
	if r == nil || r.Value == nil {
		return nil
	}
	var out []string
	if n, ok := r.Value.Extensions["x-negotiate"].(map[string]any); ok {
		out = strList(n["order"])
	}
	var rest []string
	for media := range r.Value.Content {
		found := false
		for _, o := range out {
			found = found || o == media
		}
		if !found {
			rest = append(rest, media)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func list(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		return []any{x}
	}
	return nil
}

func str(v any) string { s, _ := v.(string); return s }

func strList(v any) []string {
	var out []string
	for _, x := range list(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	if s, ok := v.(string); ok {
		out = append(out, s)
	}
	return out
}

func intOf(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case int64:
		return int(n)
	}
	return 0
}
