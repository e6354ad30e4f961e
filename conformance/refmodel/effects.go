package refmodel

// effectRules are the x-effect rules the model implements: what a success
// of an operation does beyond the resource it creates, writes or deletes.
// Each is Go because what it does (append a question and its answer, add
// the files an upload kept) is more than a mark can say; the contract says
// where each applies and what it rests on.
var effectRules = map[string]func(m *Model, j *judging, e effect, data any){
	"state":    (*Model).stateEffect,
	"exchange": (*Model).exchange,
	"files":    (*Model).files,
	"scores":   func(m *Model, j *judging, e effect, _ any) { m.scores(j.x, e) },
	// The delete applies it (remove): whether a delete is soft.
	"soft-delete": func(*Model, *judging, effect, any) {},
}

// effects applies the operation's x-effect entries.
func (m *Model) effects(j *judging, data any) {
	for _, e := range j.x.op.effects {
		if f := effectRules[e.rule]; f != nil {
			f(m, j, e, data)
		}
	}
}

// stateEffect moves the record an action acted on to the states the mark
// names, and forgets what the move releases; an action that moves nothing
// (an inference on a model) shows the record is in none of the states that
// refuse it.
func (m *Model) stateEffect(j *judging, e effect, _ any) {
	r := j.x.acted(e.str("target"))
	if r == nil {
		return
	}
	field := e.str("state")
	if to := e.list("to"); len(to) > 0 {
		r.states[field] = setOf(to...)
		r.epoch++
		r.hasScored = false // a new run: the scores effect says what it scores
		for _, f := range e.list("releases") {
			delete(r.stored, f)
			r.learnOne[f] = true
		}
		return
	}
	if known := r.states[field]; known != nil {
		rest := stateSet{}
		for s := range known {
			if !contains(e.list("refused-in"), s) {
				rest[s] = true
			}
		}
		if len(rest) > 0 {
			r.states[field] = rest
		}
	}
}

// files adds the call's kept file parts to the record the mark names (the
// one created, or the one a field names).
func (m *Model) files(j *judging, e effect, _ any) {
	r := j.record
	if into := e.str("into"); into != "" {
		r = j.x.refs[into]
	}
	if r != nil {
		m.addFiles(j, r, e)
	}
}

// exchange stores a question and its answer in the conversation the call
// names (D-32): the question under the first role, then the answer under
// the second.
func (m *Model) exchange(j *judging, e effect, data any) {
	x := j.x
	conv := x.refs[e.str("into")]
	if conv == nil {
		return
	}
	c := conv.colls[e.str("to")]
	if c == nil {
		return
	}
	roles := e.list("roles")
	if len(roles) != 2 {
		return
	}
	role, text := e.str("role-field"), e.str("text-field")
	q, _ := x.call.field(e.str("question"))
	answer, known := j.answerText(data)
	c.items = append(c.items, &item{fields: map[string]any{role: roles[0], text: q}, facts: map[string]fact{}})
	a := &item{fields: map[string]any{role: roles[1]}, facts: map[string]fact{}}
	if known {
		a.fields[text] = answer
	}
	c.items = append(c.items, a)
	conv.epoch++
}

// answerText is the whole answer a call got: a stream read to its end, or
// the JSON result's answer field.
func (j *judging) answerText(data any) (string, bool) {
	if s := j.a.Stream; s != nil {
		return s.Text, s.Complete && !j.a.Cut
	}
	if d := dataOf(j.x.op.success); d != nil {
		for _, name := range d.names {
			if p := d.props[name]; p.mark != nil && p.mark.rule == "answer" {
				t, ok := dig(data, name)
				s, isText := t.(string)
				return s, ok && isText
			}
		}
	}
	return "", false
}

// scores remembers which questions a run-ragas scored (D-10): the chosen
// ones of the samples given, or all of them; none known when it scored
// the evaluation's own questions.
func (m *Model) scores(x *expectation, e effect) {
	r := x.target
	if r == nil {
		return
	}
	body, _ := object(x.body)
	samples, _ := array(body[e.str("samples")])
	r.scored, r.hasScored = nil, len(samples) > 0
	if !r.hasScored {
		return
	}
	chosen, _ := array(body[e.str("chosen")])
	if len(chosen) == 0 {
		for _, s := range samples {
			q, _ := dig(s, e.str("question"))
			chosen = append(chosen, q)
		}
	}
	for _, q := range chosen {
		s, _ := q.(string)
		r.scored = append(r.scored, s)
	}
}

// addFiles adds the call's kept file parts to a record's collection (D-16):
// each an item with the part's name and its bytes, in the fields the mark
// names.
func (m *Model) addFiles(j *judging, r *record, e effect) {
	c := r.colls[e.str("to")]
	if c == nil {
		return
	}
	for i, f := range j.x.call.files(j.x.op) {
		switch j.parts[i] {
		case partKept:
			c.items = append(c.items, &item{fields: map[string]any{e.str("name-field"): baseName(f.Name), e.str("size-field"): len(f.Content)}, facts: map[string]fact{}})
		case partUnknown:
			c.unsure()
		}
	}
	r.epoch++
	m.touch(j.x.acct, r)
}
