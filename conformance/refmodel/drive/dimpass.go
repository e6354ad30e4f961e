package drive

import (
	"slices"
	"strings"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// The input pass: every dimension of every operation (package inputs) the
// phases before did not reach, sent at least once, whatever the seed. The
// state dimensions are the tour's, which comes after it and the bursts;
// the readings (x-lenient) are sent last, each alone.

// dimensions runs the pass with the first key.
func (d *driver) dimensions() {
	d.g.key = refmodel.KeyA
	byOp := map[string][]inputs.Dimension{}
	for _, dim := range d.run.Dims {
		byOp[dim.Op] = append(byOp[dim.Op], dim)
	}
	for _, op := range d.cat.Ops {
		dims := byOp[op.ID]
		d.values(op, dims)
		for _, dim := range d.pending(dims, inputs.FamilyAlternative) {
			d.alternative(op, dim)
		}
		for _, dim := range d.pending(dims, inputs.FamilyEncoding) {
			d.encoding(op, dim)
		}
		for _, dim := range d.pending(dims, inputs.FamilyID) {
			if f := op.Field(dim.Field); f != nil && dim.Intent == inputs.IntentDeleted {
				d.provideGone(f.Kind)
			}
			// The id alone: a call the server took otherwise (its
			// required fields, valued as it accepted them), so that a
			// refusal the reference names (a deleted or unknown id) is
			// the call's only fault; the pairs send it with others.
			if c, ok := d.g.minimal(op); ok && d.g.intent(op, &c, op.Field(dim.Field), dim.Intent) {
				d.mark(dim.Key())
				d.lean(op, c)
			}
		}
		for _, dim := range d.pending(dims, inputs.FamilyPair) {
			if c, ok := d.faulty(op, dim.Faults[:]...); ok {
				d.mark(dim.Key())
				d.lean(op, c)
			}
		}
		for _, dim := range d.pending(dims, inputs.FamilyRepeat) {
			d.repeat(op, dim)
		}
		for _, dim := range d.pending(dims, inputs.FamilyReading) {
			d.reading(op, dim)
		}
	}
}

// pending are the dimensions of a family not reached yet and not known
// unreachable.
func (d *driver) pending(dims []inputs.Dimension, f inputs.Family) []inputs.Dimension {
	var out []inputs.Dimension
	for _, dim := range dims {
		if dim.Family == f && d.run.Reached[dim.Key()] == 0 && d.run.Why[dim.Key()] == "" {
			out = append(out, dim)
		}
	}
	return out
}

// values sends the value dimensions: a value the reference names alone in
// a call the server took, a value the contract refuses alone, the others
// packed, one per top-level field in each call.
func (d *driver) values(op *inputs.Op, dims []inputs.Dimension) {
	g := d.g
	var packed []inputs.Dimension
	for _, dim := range d.pending(dims, inputs.FamilyValue) {
		f := op.Field(dim.Field)
		switch {
		case f == nil:
		case dim.Value.Named:
			if c, ok := g.minimal(op); ok && g.setValue(op, &c, f, dim.Value) {
				g.repair(op, &c)
				d.mark(dim.Key())
				d.lean(op, c)
			}
		case dim.Value.Invalid:
			if c, ok := g.build(op, shape{body: true}); ok && g.setValue(op, &c, f, dim.Value) {
				d.mark(dim.Key())
				d.lean(op, c)
			}
		default:
			packed = append(packed, dim)
		}
	}
	for len(packed) > 0 && !d.stopped() {
		c, ok := g.build(op, shape{body: true})
		if !ok {
			return
		}
		tops, vacated := map[string]bool{}, map[string]bool{}
		var sent []string
		rest := packed[:0:0]
		for _, dim := range packed {
			f := op.Field(dim.Field)
			group := groupOf(op, f.Loc())
			if tops[f.In+f.Top()] || (group != "" && vacates(dim.Value) && vacated[group]) || !g.setValue(op, &c, f, dim.Value) {
				rest = append(rest, dim)
				continue
			}
			tops[f.In+f.Top()] = true
			if group != "" && vacates(dim.Value) {
				vacated[group] = true
			}
			sent = append(sent, dim.Key())
		}
		if len(sent) == 0 {
			return
		}
		d.refill(op, &c, tops)
		g.repair(op, &c)
		d.mark(sent...)
		d.lean(op, c)
		packed = rest
	}
}

// refill gives each alternatives group the call left empty a member no
// dimension of the call touched.
func (d *driver) refill(op *inputs.Op, c *refmodel.Call, touched map[string]bool) {
	for _, gr := range op.Groups {
		if anyGiven(c, gr.Members) {
			continue
		}
		for _, m := range gr.Members {
			if f := op.Field(m); f != nil && !touched[f.In+f.Top()] {
				d.g.fillLoc(op, c, m)
				break
			}
		}
	}
}

// groupOf names the alternatives group a location belongs to ("" none).
func groupOf(op *inputs.Op, loc string) string {
	for _, gr := range op.Groups {
		if slices.Contains(gr.Members, loc) {
			return strings.Join(gr.Members, " ")
		}
	}
	return ""
}

// vacates reports whether a value leaves its field giving nothing.
func vacates(v *inputs.Value) bool {
	if v.Absent {
		return true
	}
	switch x := v.Literal.(type) {
	case string:
		return v.HasLiteral && strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	}
	return false
}

// alternative sends a branch of an alternatives group: its members given,
// the others left out (none: the group left out, a refusal).
func (d *driver) alternative(op *inputs.Op, dim inputs.Dimension) {
	c, ok := d.g.build(op, shape{})
	if !ok {
		return
	}
	for _, m := range dim.Group.Members {
		unset(&c, m)
	}
	for _, m := range dim.Branch {
		d.g.fillLoc(op, &c, m)
	}
	if op.Media == "application/json" && c.Body == nil && len(dim.Branch) == 0 {
		c.Body = map[string]any{}
	}
	d.g.repair(op, &c)
	d.mark(dim.Key())
	d.lean(op, c)
}

// encoding sends a call the server took before, spelt as the encoding
// dimension says.
func (d *driver) encoding(op *inputs.Op, dim inputs.Dimension) {
	g := d.g
	if d.wire(op, dim) { // wire.go: transports and text from every plane
		return
	}
	if dim.Encoding.Trick == inputs.TrickQuotedText {
		d.quotedAnswer(op, dim)
		return
	}
	c, ok := g.minimal(op)
	if !ok {
		return
	}
	if dim.Encoding.Header == "Content-Type" && c.Body == nil {
		for _, gr := range op.Groups {
			for _, m := range gr.Members {
				if strings.HasPrefix(m, "body:") {
					g.fillLoc(op, &c, m)
				}
			}
		}
	}
	if f := dim.Encoding.Field; f != "" && !given(&c, f) {
		g.fillLoc(op, &c, f)
	}
	if g.encode(op, &c, dim.Encoding) {
		d.mark(dim.Key())
		d.do(c)
	}
}

// quotedAnswer asks the model of a dataset holding text with quotes,
// backslashes, tabs and line breaks about that text, streamed and as one
// JSON result: the answer quotes it, and must escape it.
func (d *driver) quotedAnswer(op *inputs.Op, dim inputs.Dimension) {
	if d.fed == nil {
		return
	}
	k := d.cat.Kind(d.fed.Kind)
	question := ""
	for _, e := range op.Effects {
		if e.Question != "" {
			question = e.Question
		}
	}
	for _, accept := range op.Answers {
		c, ok := d.aimed(op, k, d.fed.ID)
		if !ok || question == "" {
			return
		}
		setBody(&c, question, quotingQuestion)
		c.Accept = accept
		d.mark(dim.Key(), op.ID+" "+inputs.PlanesQuoted) // the quoting file holds text from every plane
		d.do(c)
	}
}

// provideGone makes a resource of k and deletes it when the model knows
// no deleted one: the input pass comes before the passes that delete, and
// a deleted id in a body or a query (a model to evaluate, a dataset to
// train on) is a dimension of its own.
func (d *driver) provideGone(k *inputs.Kind) {
	if k == nil || k.Create == nil || k.Delete == nil {
		return
	}
	if _, ok := d.g.pick(k.Param, d.g.key, gone); ok {
		return
	}
	id := d.make(k, nil, nil)
	if id == "" {
		return
	}
	del, ok := d.g.minimal(k.Delete)
	if !ok {
		return
	}
	del.Path = map[string]string{k.Param: id}
	d.do(del)
}

// faulty is a call of op with the faults given; a fault a resource's
// state gives (a running evaluation) is provided first when the model
// knows none.
func (d *driver) faulty(op *inputs.Op, faults ...inputs.Fault) (refmodel.Call, bool) {
	c, ok := d.g.call(op, faults...)
	if ok || !slices.Contains(faults, inputs.FaultConflict) {
		return c, ok
	}
	d.provideConflict(op)
	return d.g.call(op, faults...)
}

// provideConflict makes a resource of the run in a state op's x-effect
// refuses (an evaluation started: running).
func (d *driver) provideConflict(op *inputs.Op) {
	for _, e := range op.Effects {
		k := d.cat.Kind(e.Target)
		if e.Rule != "state" || k == nil || k.Create == nil || k.Machine == nil {
			continue
		}
		for _, s := range e.RefusedIn {
			if ids := d.makeN(k, 1, nil, d.fed); d.actTo(k, ids, s) {
				return
			}
		}
	}
}

// repeat sends a refused call twice (the second must be refused the same
// way: the first changed nothing), or a successful delete twice (the
// second must find nothing).
func (d *driver) repeat(op *inputs.Op, dim inputs.Dimension) {
	if dim.Fault != "" {
		c, ok := d.faulty(op, dim.Fault)
		if !ok {
			return
		}
		d.lean(op, c)
		d.mark(dim.Key())
		d.lean(op, c)
		return
	}
	id := d.make(op.Kind, nil, d.fed)
	if id == "" {
		return
	}
	c, ok := d.aimed(op, op.Kind, id)
	if !ok {
		return
	}
	if d.do(c).Status/100 == 2 {
		d.mark(dim.Key())
		d.do(c)
	}
}

// jsonMedia is the JSON media type.
const jsonMedia = "application/json"

// lean sends a call of the input pass. An operation that streams its
// answer unless asked otherwise (an inference, D-04) is asked for its JSON
// answer three calls in four: a value, an id or a fault is judged the same
// in either answer, and a stream paced token by token costs its length in
// time (the encodings, the quoted answer, the tour and the effects stream
// as they must).
func (d *driver) lean(op *inputs.Op, c refmodel.Call) refmodel.Answer {
	if c.Accept == "" && op.Stream() && slices.Contains(op.Answers, jsonMedia) && d.g.turn("lean:"+op.ID)%4 != 0 {
		c.Accept = jsonMedia
	}
	return d.do(c)
}
