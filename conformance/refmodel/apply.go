package refmodel

import (
	"cmp"
	"path"
	"strconv"
	"strings"
)

// apply changes the model as a success of the call says: a create makes a
// record, an update writes, a delete removes (and what goes with it), an
// action moves a state, and effects reach other records. data is the
// answer's data, nil when the answer was not read: what needs it becomes
// unsure.
func (m *Model) apply(j *judging, body map[string]any) {
	x := j.x
	var data any
	if body != nil {
		data = body["data"]
	}
	j.parts = m.partFates(x, data, body != nil)
	switch x.op.role {
	case roleCreate:
		if j.record = m.create(j, data); j.record == nil {
			m.unsure(x)
			return
		}
	case roleUpdate:
		if r := x.target; r != nil {
			m.write(x, r)
			r.epoch++
			j.record = r
		}
	case roleGet, roleAction:
		j.record = x.target
	case roleDelete:
		if r := x.target; r != nil {
			m.remove(x, r)
		}
	}
	m.effects(j, data)
}

// identityField is the record's field an identity mark stands on.
func (k *kind) identityField() string {
	if k.record == nil {
		return ""
	}
	for _, name := range k.record.names {
		if p := k.record.props[name]; p.mark != nil && p.mark.rule == "identity" {
			return name
		}
	}
	return ""
}

// create makes the record a create answered with, nil when its id is not
// in the answer.
func (m *Model) create(j *judging, data any) *record {
	x, k := j.x, j.x.op.kind
	field := k.identityField()
	v, _ := dig(data, field)
	id := idString(v)
	if id == "" {
		return nil
	}
	if m.ids[k][id] {
		j.find("/data/"+field, "identity", "an id no "+strings.TrimSuffix(k.param, "_id")+" had before", id, k.record.props[field].mark.onDecision())
	}
	r := m.newRecord(x.acct, k, id)
	r.seq, r.fresh = x.acct.seq, true
	x.acct.seq++
	if k.scope != "" {
		if p, ok := x.call.field(k.scope); ok {
			r.parent = idString(p)
			if pk := m.cat.byParam[k.scope]; pk != nil {
				r.parent = pk.canonical(r.parent)
			}
		}
	}
	m.write(x, r)
	if b, ok := object(x.body); ok {
		for k, v := range b {
			r.sent[k] = v
		}
	}
	if x.call.Form != nil {
		for k, v := range x.call.Form.Fields {
			r.sent[k] = strings.Join(v, "\n")
		}
	}
	for f, mach := range k.machines {
		r.states[f] = setOf(mach.initial...)
	}
	x.acct.add(r)
	for _, child := range m.cat.kinds {
		if child.scope == k.param {
			m.scope(x.acct, child, id).whole = true
		}
	}
	return r
}

// write keeps what the call sent into the record's stored fields.
func (m *Model) write(x *expectation, r *record) {
	for _, reqField := range sortedKeys(x.op.stored) {
		st := x.op.stored[reqField]
		if st.field == "" || reqField == x.op.files || r.kind.record.props[st.field] == nil {
			continue
		}
		var v any
		var ok bool
		if x.call.Form != nil {
			v, ok = x.call.field(reqField)
		} else {
			v, ok = dig(x.body, reqField)
		}
		if ok {
			b := st.basis
			if b == (basis{}) {
				b = basis{clause: x.op.clause} // the request's table: what it writes is what the record shows
			}
			if x.multi[reqField] {
				b = b.weaker(basis{decision: "D-08"}) // read from the first of its parts
			}
			r.stored[st.field] = fact{value: v, basis: b, by: x.op.id}
		}
	}
	// A query parameter named like a field of the record writes it when the
	// body does not (the rename's title, D-21: the body wins).
	for _, p := range x.op.params {
		if p.In != "query" || r.kind.record.props[p.Name] == nil || !x.call.Query.Has(p.Name) || r.kind.scope == p.Name {
			continue
		}
		if _, inBody := dig(x.body, p.Name); inBody {
			continue
		}
		b := basis{clause: "4"}
		if d, ok := p.Extensions["x-decision"].(map[string]any); ok && d["class"] == "decided" {
			row, _ := d["row"].(string)
			b = basis{decision: row}
		}
		r.stored[p.Name] = fact{value: x.call.Query.Get(p.Name), basis: b, by: x.op.id}
	}
}

// remove deletes a record: softly when an x-effect says so (kept for what
// refers to it), and with the records whose reference says they go with
// it.
func (m *Model) remove(x *expectation, r *record) {
	r.gone, r.goneBasis = deleted, basis{clause: cmp.Or(x.op.clause, "4")}
	for _, e := range x.op.effects {
		if e.rule != "soft-delete" {
			continue
		}
		if v, ok := x.call.value(x.op, e.str("unless")); !ok || !truthy(v) {
			r.gone, r.goneBasis = soft, e.basis()
		}
	}
	m.cascade(x.acct, r)
}

// cascade applies a record's delete to the records that refer to it:
// those whose reference says they go with it are deleted, the others may
// show what they computed from it differently.
func (m *Model) cascade(a *account, r *record) {
	for _, k := range m.cat.kinds {
		for f, ref := range k.refs {
			if ref.kind != r.kind {
				continue
			}
			for _, rr := range a.records {
				if rr.kind != k || rr.gone != live || !refersTo(rr, f, r.id) {
					continue
				}
				if ref.onDelete == "cascade" {
					rr.gone, rr.goneBasis = deleted, ref.basis
				} else {
					rr.epoch++
				}
			}
		}
	}
}

// orphaned returns the record r would go with whose delete went
// unanswered, nil when none.
func (m *Model) orphaned(a *account, r *record) *record {
	for f, ref := range r.kind.refs {
		if ref.onDelete != "cascade" {
			continue
		}
		id := r.parent
		if r.kind.scope != f || id == "" {
			id = idString(r.stored[f].value)
		}
		if p := a.find(ref.kind, id); p != nil && p.gone == maybe {
			return p
		}
	}
	return nil
}

// truthy reads a boolean sent as JSON or as query text.
func truthy(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		t, _ := strconv.ParseBool(strings.TrimSpace(b))
		return t
	}
	return false
}

// refersTo reports whether record r's field f names id.
func refersTo(r *record, f, id string) bool {
	if r.kind.scope == f && r.parent != "" {
		return r.parent == id
	}
	v := idString(r.stored[f].value)
	if ref, ok := r.kind.refs[f]; ok {
		v = ref.kind.canonical(v) // sent with leading zeros (D-20)
	}
	return v == id
}

// touch marks every record that refers to r as possibly changed: what the
// server computes from r (a model's dataset_info) may have moved.
func (m *Model) touch(a *account, r *record) {
	for _, rr := range a.records {
		for f, ref := range rr.kind.refs {
			if ref.kind == r.kind && refersTo(rr, f, r.id) {
				rr.epoch++
			}
		}
	}
}

// baseName is the name a server reports a file part under: its base.
func baseName(name string) string {
	return path.Base(strings.ReplaceAll(name, `\`, "/"))
}
