package inputs

import (
	"regexp"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

var uuidText = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// describe fills what the operations and the record schema say of k.
func (c *Catalog) describe(sc *spec.Contract, k *Kind) {
	for _, op := range c.Ops {
		if op.Kind != k {
			continue
		}
		switch op.Role {
		case RoleCreate:
			k.Create = op
		case RoleList:
			k.List = op
			for _, f := range op.IDs {
				if f.In == "query" && f.Required {
					k.Scope = f.Name
				}
			}
		case RoleGet:
			k.Get = op
		case RoleDelete:
			k.Delete = op
		case RoleUpdate:
			k.Updates = append(k.Updates, op)
		case RoleAction:
			k.Actions = append(k.Actions, op)
		case RoleChild:
			k.Children = append(k.Children, op)
		}
	}
	record := c.recordOf(sc, k)
	k.IDForm = "text"
	if record != nil && record.Properties["id"] != nil && schemaType(record.Properties["id"].Value) == "integer" {
		k.IDForm = "number"
	}
	for _, op := range c.Ops {
		for _, f := range op.IDs {
			if f.Kind != k || f.Schema == nil || k.IDForm == "number" {
				continue
			}
			if f.Schema.Format == "uuid" {
				k.IDForm = "uuid"
			}
			if ex, ok := f.Schema.Example.(string); ok && uuidText.MatchString(ex) {
				k.IDForm = "uuid"
			}
		}
	}
	if record == nil {
		return
	}
	colls := map[string]bool{}
	names := make([]string, 0, len(record.Properties))
	for name := range record.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	var machines []*Machine
	for _, name := range names {
		p := record.Properties[name].Value
		if p == nil {
			continue
		}
		p = unwrap(p)
		if t, ok := p.Extensions["x-transitions"].(map[string]any); ok {
			machines = append(machines, readMachine(name, t))
		}
		mark, _ := p.Extensions["x-predict"].(map[string]any)
		if mark == nil {
			continue
		}
		if of := str(mark["of"]); of != "" {
			switch str(mark["rule"]) {
			case "count", "sum", "last", "collection":
				colls[of] = true
			}
		}
		if str(mark["rule"]) == "stored" && mark["unique"] != nil {
			if k.unique == nil {
				k.unique = map[string]bool{}
			}
			k.unique[name] = true
		}
		if od := str(mark["on-delete"]); od != "" && c.byParam[name] != nil {
			k.Refs = append(k.Refs, Ref{Field: name, Kind: c.byParam[name], OnDelete: od})
		}
	}
	for _, op := range k.Children {
		colls[op.Coll] = true
	}
	for name := range colls {
		k.Colls = append(k.Colls, name)
	}
	sort.Strings(k.Colls)
	// The machine an operation's x-effect reads, else the first.
	for _, op := range c.Ops {
		for _, e := range op.Effects {
			if e.Rule == "state" && e.Target == k.Param {
				for _, m := range machines {
					if m.Field == e.State {
						k.Machine = m
					}
				}
			}
		}
	}
	if k.Machine == nil && len(machines) > 0 {
		k.Machine = machines[0]
	}
}

// recordOf is the schema of k's record: the data of its get answer (or
// its create's).
func (c *Catalog) recordOf(sc *spec.Contract, k *Kind) *openapi3.Schema {
	for _, op := range []*Op{k.Get, k.Create} {
		if d := answerData(sc, op); d != nil {
			return d
		}
	}
	return nil
}

// answerData is the schema of the data of op's 200 JSON answer, nil when
// it has none (or op is nil).
func answerData(sc *spec.Contract, op *Op) *openapi3.Schema {
	if op == nil {
		return nil
	}
	r := sc.Kin.Paths.Value(op.Path).GetOperation(op.Method).Responses.Value("200")
	if r == nil || r.Value == nil {
		return nil
	}
	mt := r.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	if d := unwrap(mt.Schema.Value).Properties["data"]; d != nil && d.Value != nil {
		return unwrap(d.Value)
	}
	return nil
}

// unwrap follows an allOf wrapper that only carries marks to its member.
func unwrap(s *openapi3.Schema) *openapi3.Schema {
	for s != nil && len(s.Properties) == 0 && len(s.AllOf) > 0 && s.AllOf[0].Value != nil {
		s = s.AllOf[0].Value
	}
	return s
}

// readMachine reads an x-transitions mark of field.
func readMachine(field string, t map[string]any) *Machine {
	m := &Machine{Field: field, Initial: strList(t["initial"]), Clock: map[string][]string{}}
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			m.States = append(m.States, s)
		}
	}
	for _, s := range m.Initial {
		add(s)
	}
	for _, key := range []string{"moves", "clock"} {
		mv, _ := t[key].(map[string]any)
		froms := make([]string, 0, len(mv))
		for from := range mv {
			froms = append(froms, from)
		}
		sort.Strings(froms)
		for _, from := range froms {
			add(from)
			for _, to := range strList(mv[from]) {
				add(to)
				if key == "clock" {
					m.Clock[from] = append(m.Clock[from], to)
				}
			}
		}
	}
	sort.Strings(m.States)
	return m
}
