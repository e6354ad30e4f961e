package inputs

import (
	"fmt"
	"strings"
)

// alternativeDims are each branch of each x-alternatives group: every
// non-empty set of its members (files only, URLs only, both), and none of
// them (a refusal).
func alternativeDims(op *Op) []Dimension {
	var out []Dimension
	for i := range op.Groups {
		g := &op.Groups[i]
		n := len(g.Members)
		if n == 0 || n > 4 {
			continue
		}
		label := strings.Join(g.Members, " / ")
		for set := 1; set < 1<<n; set++ {
			var branch []string
			for j, m := range g.Members {
				if set&(1<<j) != 0 {
					branch = append(branch, m)
				}
			}
			what := strings.Join(branch, " and ")
			if len(branch) == 1 {
				what += " only"
			}
			out = append(out, Dimension{Family: FamilyAlternative, Name: fmt.Sprintf("%s: %s", label, what), Group: g, Branch: branch})
		}
		out = append(out, Dimension{Family: FamilyAlternative, Name: fmt.Sprintf("%s: none of them (refused)", label), Group: g})
	}
	return out
}

// encodingDims are the spellings of the call's media types a client may
// send: a charset and another case on the body's type, a JSON type on a
// call without a body, Accept lists, */* and parameters; a form's part
// given twice, text outside ASCII, file text an answer will quote.
func encodingDims(op *Op) []Dimension {
	var out []Dimension
	header := func(h, text string) {
		out = append(out, Dimension{Family: FamilyEncoding, Name: h + ": " + text, Encoding: &Encoding{Header: h, Text: text}})
	}
	trick := func(name, trick, field string) {
		out = append(out, Dimension{Family: FamilyEncoding, Name: name, Field: field, Encoding: &Encoding{Trick: trick, Field: field}})
	}
	switch op.Media {
	case "application/json":
		header("Content-Type", "application/json; charset=utf-8")
		header("Content-Type", "Application/JSON")
		if hasText(op) {
			trick("JSON text written with \\u escapes", TrickEscaped, "")
		}
	case "multipart/form-data":
		for _, f := range op.Fields {
			if f.In == "form" && f != op.Files && !strings.ContainsAny(f.Name, ".[") {
				trick(f.Loc()+" in two parts", TrickTwoParts, f.Loc())
			}
		}
		for _, f := range op.IDs {
			if f.In == "form" {
				trick(f.Loc()+" in two parts", TrickTwoParts, f.Loc())
			}
		}
		trick("form text outside ASCII", TrickNonASCII, "")
		if op.Files != nil {
			trick("file text with quotes, backslashes, tabs and line breaks", TrickQuoting, op.Files.Loc())
			trick("a file name outside ASCII", TrickFileName, op.Files.Loc())
		}
	case "":
		trick("Content-Type: application/json without a body", TrickNoBody, "")
	}
	for _, f := range op.Fields {
		if f.In == "query" && f.Type() == "string" && len(f.Schema.Enum) == 0 {
			trick(f.Loc()+" outside ASCII", TrickNonASCII, f.Loc())
		}
	}
	for _, m := range op.Answers {
		header("Accept", m)
		header("Accept", m+"; charset=utf-8")
	}
	header("Accept", "*/*")
	header("Accept", "application/json, text/plain, */*")
	if len(op.Answers) > 1 {
		header("Accept", strings.Join(op.Answers, ", "))
		header("Accept", op.Answers[len(op.Answers)-1]+";q=0.9, */*;q=0.1")
	}
	if op.Stream() {
		trick("an answer quoting text with quotes, backslashes, tabs and line breaks", TrickQuotedText, "")
	}
	return out
}

// hasText reports whether a JSON body has a text field.
func hasText(op *Op) bool {
	for _, f := range op.Fields {
		if f.In == "body" && f.Type() == "string" {
			return true
		}
	}
	return false
}

// idDims aim each id-bearing field at each intent.
func idDims(op *Op) []Dimension {
	var out []Dimension
	for _, f := range op.IDs {
		intents := []Intent{IntentDeleted, IntentForeign, IntentNeverSeen, IntentDropped, IntentAppended, IntentOtherKind}
		switch f.Kind.IDForm {
		case "number":
			intents = append(intents, IntentNext)
			if f.In != "body" || f.Type() == "string" {
				intents = append(intents, IntentZeros) // a JSON number has no leading zeros
			}
		case "uuid":
			intents = append(intents, IntentChanged, IntentUpper)
		}
		for _, in := range intents {
			out = append(out, Dimension{Family: FamilyID, Field: f.Loc(), Name: fmt.Sprintf("%s → %s", f.Loc(), in), Intent: in, Kind: f.Kind})
		}
	}
	return out
}

// Touched lists the resources op reads or writes, by id parameter: its own
// (an item operation, or the list), and those its id fields name.
func (c *Catalog) Touched(op *Op) []*Kind {
	var out []*Kind
	add := func(k *Kind) {
		for _, x := range out {
			if x == k {
				return
			}
		}
		out = append(out, k)
	}
	if op.Kind != nil && op.Role != RoleCreate {
		add(op.Kind)
	}
	for _, f := range op.IDs {
		add(f.Kind)
	}
	return out
}

// States lists the states of k a call may meet: its machine's states, each
// collection without and with items, each kind whose records name it
// holding one (relations), and what each update and each effect writing
// into it leaves.
func (c *Catalog) States(k *Kind) []State {
	var out []State
	if m := k.Machine; m != nil {
		for _, s := range m.States {
			out = append(out, State{Field: m.Field, Value: s})
		}
	}
	for _, coll := range k.Colls {
		out = append(out, State{Coll: coll}, State{Coll: coll, Items: true})
	}
	out = append(out, c.relations(k)...)
	for _, op := range c.Ops {
		for _, e := range op.Effects {
			if e.Into == k.Param && op.Role != RoleCreate {
				out = append(out, State{After: op.ID})
				break
			}
		}
	}
	for _, op := range k.Updates {
		out = append(out, State{After: op.ID})
	}
	return out
}

// stateDims: each state of each resource op touches.
func (c *Catalog) stateDims(op *Op) []Dimension {
	var out []Dimension
	for _, k := range c.Touched(op) {
		for _, s := range c.States(k) {
			out = append(out, Dimension{Family: FamilyState, Name: StateName(k, s), Kind: k, State: s})
		}
	}
	return out
}

// StateName is the name of the state dimension of k in s ("a conversation
// with messages").
func StateName(k *Kind, s State) string { return fmt.Sprintf("a %s %s", k.Word(), s) }

// Changes reports whether a call of op changes a resource of k: a write to
// its own item, or an effect written into it.
func Changes(op *Op, k *Kind) bool {
	if !op.Writes() {
		return false
	}
	if op.Kind == k && op.Role != RoleCreate && op.Role != RoleList {
		return true
	}
	for _, e := range op.Effects {
		if e.Into == k.Param {
			return true
		}
	}
	return false
}
