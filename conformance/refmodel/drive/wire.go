package drive

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// The last input dimensions (inputs/transport.go): a request carried
// another way than the plain one — its body chunked or after Expect:
// 100-continue, a space in its query written %20 and +, its path ids
// percent-encoded — which a server must answer as the plain request (D-49:
// the model classes a break of it declared); text from every Unicode plane
// written through every text field and read back; a name a resource holds
// asked about in each state of its holder and in another letter case.

// wireTricks are the tricks wire sends.
var wireTricks = []string{inputs.TrickChunked, inputs.TrickContinue, inputs.TrickSpacePercent, inputs.TrickSpacePlus,
	inputs.TrickEscapedPath, inputs.TrickPlanes, inputs.TrickPlanesRead, inputs.TrickPlanesQuoted}

// planes is text from every Unicode plane a field may hold: beyond the
// BMP (mathematical letters, an emoji, a ZWJ sequence, a flag, a
// supplementary ideograph), a combining mark, right-to-left scripts. With
// letters, letters only: a name whose rules take letters, digits and
// spaces (D-19) takes it too.
func (g *gen) planes(letters bool) string {
	g.n++
	if letters {
		return fmt.Sprintf("Příručka %d 𝐌𝐚𝐭𝐡 𝔉𝔯𝔞𝔨𝔱𝔲𝔯 שלום مرحبا 𠮷野", g.n)
	}
	return fmt.Sprintf("Příručka %d 𝐌𝐚𝐭𝐡 😀 👩‍💻 🇨🇿 Cafe\u0301 שלום مرحبا 𠮷", g.n)
}

// wire sends the encoding dimension dim of op when it is one of the wire
// tricks; false when it is not.
func (d *driver) wire(op *inputs.Op, dim inputs.Dimension) bool {
	switch dim.Encoding.Trick {
	case inputs.TrickChunked, inputs.TrickContinue:
		d.carried(op, dim)
	case inputs.TrickSpacePercent, inputs.TrickSpacePlus:
		d.spaces(op, dim.Field)
	case inputs.TrickEscapedPath:
		d.escaped(op, dim)
	case inputs.TrickPlanes:
		d.planesWrite(op)
	case inputs.TrickPlanesRead:
		d.planesRead(op)
	case inputs.TrickPlanesQuoted:
		d.quotedAnswer(op, dim)
	default:
		return false
	}
	return true
}

// carried sends a call the server took before with its body chunked or
// after Expect: 100-continue. It refuses nothing a plain call is not
// refused for: the model classes a refusal of it declared (D-49).
func (d *driver) carried(op *inputs.Op, dim inputs.Dimension) {
	g := d.g
	c, ok := g.minimal(op)
	if !ok {
		return
	}
	if c.Body == nil && c.Form == nil && op.Media == jsonMedia {
		for _, gr := range op.Groups {
			for _, m := range gr.Members {
				if strings.HasPrefix(m, "body:") && !given(&c, m) {
					g.fillLoc(op, &c, m)
				}
			}
			for _, m := range gr.Members {
				if !strings.HasPrefix(m, "body:") {
					unset(&c, m)
				}
			}
		}
		if c.Body == nil {
			c.Body = map[string]any{}
		}
	}
	c.Wire.Chunked = dim.Encoding.Trick == inputs.TrickChunked
	c.Wire.Continue = dim.Encoding.Trick == inputs.TrickContinue
	d.mark(dim.Key())
	d.lean(op, c)
}

// spaces sends a query text with spaces in it twice, the spaces written
// %20, then + (url.Values.Encode's way, and every form encoder's): the
// same request, which must get the same answer. A text a resource holds
// (the name check's name) is one of its resources' own.
func (d *driver) spaces(op *inputs.Op, loc string) {
	g := d.g
	c, ok := g.minimal(op)
	f := op.Field(loc)
	if !ok || f == nil {
		return
	}
	text := ""
	for _, h := range op.Holds {
		if h.Field == loc {
			text = d.heldText(h, func(s string) bool { return strings.Contains(strings.TrimSpace(s), " ") })
		}
	}
	if text == "" {
		text = c.Query.Get(f.Name)
		if !strings.Contains(strings.TrimSpace(text), " ") {
			text = g.text(f.Name)
		}
	}
	if c.Query == nil {
		c.Query = query()
	}
	c.Query.Set(f.Name, strings.TrimSpace(text))
	for _, gr := range op.Groups {
		if slices.Contains(gr.Members, loc) {
			for _, m := range gr.Members {
				if m != loc {
					unset(&c, m)
				}
			}
		}
	}
	if op.Media == jsonMedia && !op.BodyRequired {
		if b, ok := c.Body.(map[string]any); ok && len(b) == 0 {
			c.Body = nil
		}
	}
	for _, sp := range []struct{ space, trick string }{{refmodel.SpacePercent, inputs.TrickSpacePercent}, {refmodel.SpacePlus, inputs.TrickSpacePlus}} {
		c.Wire.Space = sp.space
		d.mark(op.ID + " " + loc + " with a space written " + sp.space)
		d.do(c)
	}
}

// heldText is the value of h's held field of a live resource of the
// account that ok accepts ("" none the model knows).
func (d *driver) heldText(h inputs.Holder, ok func(string) bool) string {
	for _, r := range d.m.Resources(d.g.key) {
		if s, isText := r.Fields[h.Held].(string); isText && r.Kind == h.Kind.Param && !r.Gone && ok(s) {
			return s
		}
	}
	return ""
}

// escaped sends a call with every byte of its path ids percent-encoded; a
// read goes plainly first (a twin the model compares it with).
func (d *driver) escaped(op *inputs.Op, dim inputs.Dimension) {
	c, ok := d.g.minimal(op)
	if !ok {
		return
	}
	if !op.Writes() {
		d.lean(op, c)
	}
	c.Wire.Escaped = true
	d.mark(dim.Key())
	d.lean(op, c)
}

// askHolders asks each operation that compares a request field with what a
// resource of k holds (the name check) about what the resource id holds,
// in the state the tour met it in (s, or the state the model or the read
// knows), and once in another letter case.
func (d *driver) askHolders(k *inputs.Kind, id string, s *inputs.State, read string) {
	if k.Machine == nil || s != nil && s.Field == "" {
		return
	}
	r, ok := d.resource(k, id)
	if !ok || r.Gone {
		return
	}
	state := read
	if s != nil {
		state = s.Value
	}
	if v := r.States[k.Machine.Field]; len(v) == 1 {
		state = v[0]
	}
	if state == "" {
		return
	}
	st := inputs.State{Field: k.Machine.Field, Value: state}
	for _, op := range d.cat.Ops {
		for _, h := range op.Holds {
			held, isText := r.Fields[h.Held].(string)
			if h.Kind != k || !isText {
				continue
			}
			c, ok := d.g.minimal(op)
			if !ok {
				continue
			}
			ask := func(text, dim string) {
				cc := c
				cc.Query = query()
				for name, v := range c.Query {
					cc.Query[name] = slices.Clone(v)
				}
				setLoc(&cc, h.Field, text)
				d.mark(op.ID + " " + dim)
				d.do(cc)
			}
			ask(held, fmt.Sprintf("%s = the %s of %s", h.Field, h.Held, inputs.StateName(k, st)))
			other := otherCase(held)
			if h.Fold && other != held && d.run.Reached[fmt.Sprintf("%s %s = a %s's %s in another letter case", op.ID, h.Field, k.Word(), h.Held)] == 0 {
				ask(other, fmt.Sprintf("%s = a %s's %s in another letter case", h.Field, k.Word(), h.Held))
			}
		}
	}
}

// otherCase is s with the case of each letter swapped.
func otherCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

// setLoc sets a text at a location of the call.
func setLoc(c *refmodel.Call, loc, text string) {
	in, name, _ := strings.Cut(loc, ":")
	switch in {
	case "query":
		if c.Query == nil {
			c.Query = query()
		}
		c.Query.Set(name, text)
	case "form":
		if c.Form == nil {
			c.Form = &refmodel.Form{Fields: map[string][]string{}}
		}
		f := *c.Form
		f.Fields = cloneFields(c.Form.Fields)
		f.Fields[name] = []string{text}
		c.Form = &f
	default:
		b, _ := c.Body.(map[string]any)
		nb := cloneMap(b)
		nb[name] = text
		c.Body = nb
	}
}
