package inputs

import (
	"fmt"
	"slices"
	"sort"

	"contractkit/spec"
)

// Family is what a dimension varies.
type Family string

// The families, in the order a driver reaches them.
const (
	FamilyValue       Family = "value"
	FamilyAlternative Family = "alternative"
	FamilyEncoding    Family = "encoding"
	FamilyID          Family = "id"
	FamilyPair        Family = "pair"
	FamilyRepeat      Family = "repeat"
	FamilyBurst       Family = "burst"
	FamilyState       Family = "state"
	FamilyReading     Family = "reading"
)

// Families lists the families in order.
func Families() []Family {
	return []Family{FamilyValue, FamilyAlternative, FamilyEncoding, FamilyID, FamilyPair, FamilyRepeat, FamilyBurst, FamilyState, FamilyReading}
}

// Dimension is one way a call of an operation may vary. A driver sends it
// at least once and counts it reached.
type Dimension struct {
	Op     string
	Family Family
	// Name says what is sent, unique within the operation
	// ("body:title = empty", "path:model_id → leading zeros").
	Name string
	// Field is the field it varies ("body:title"), "" when none.
	Field string
	// Value is what a value dimension sends.
	Value *Value
	// Group and Branch: an alternative's group and the members it sends
	// (none: the group left out).
	Group  *Group
	Branch []string
	// Encoding is what an encoding dimension changes.
	Encoding *Encoding
	// Intent is an id dimension's intent.
	Intent Intent
	// Faults are a pair's two faults, Wins the statuses of the one that
	// must win; Fault is the refusal a repeat sends again ("" a delete
	// repeated).
	Faults [2]Fault
	Wins   []int
	Fault  Fault
	// Kind and State: the resource a state dimension aims at, and its
	// state.
	Kind  *Kind
	State State
	// Reading is the x-lenient reading a reading dimension sends.
	Reading *spec.Reading
}

// Key names the dimension across the contract: "<operationId> <name>".
func (d Dimension) Key() string { return d.Op + " " + d.Name }

// Value is what a value dimension sends.
type Value struct {
	// Absent: the field is left out.
	Absent bool
	// Literal is sent as is when HasLiteral (a bound, an enum member, a
	// named value, "", a value of another type).
	Literal    any
	HasLiteral bool
	// Length is the characters of a generated text, or the items of a
	// generated list (0 with a Literal; -1 the generator's choice).
	Length int
	// Alt is the branch of a oneOf or anyOf the value takes (1-based; 0
	// none).
	Alt int
	// Named: the reference names the value (an enum member, an x-named
	// value, a boolean, a bound of a range the reference states); a
	// driver sends it alone in a call the server accepted otherwise, so
	// that a refusal is about the value.
	Named bool
	// Invalid: the contract as written refuses it; Declared: its declared
	// view does too (a refusal must come).
	Invalid, Declared bool
}

// Encoding is what an encoding dimension changes.
type Encoding struct {
	// Header and Text: a request header sent with this value
	// ("Content-Type", "Accept").
	Header, Text string
	// Trick is a change of the body: one of the Trick constants.
	Trick string
	// Field is the form field or query parameter the trick applies to.
	Field string
}

// The body tricks of encoding dimensions.
const (
	TrickNoBody     = "content-type-without-body" // a Content-Type on a call without a body
	TrickTwoParts   = "two-parts"                 // a form field given in two parts
	TrickNonASCII   = "non-ascii"                 // form or query text outside ASCII
	TrickQuoting    = "quoting-text"              // file text with quotes, backslashes, tabs, line breaks
	TrickFileName   = "file-name"                 // a file name outside ASCII
	TrickEscaped    = "escaped-json"              // JSON text written with \u escapes
	TrickQuotedText = "answer-quotes"             // an answer quoting such text (a stream's JSON escaping)
)

// Intent is what an id dimension aims an id field at.
type Intent string

// The intents of an id field.
const (
	IntentDeleted   Intent = "a deleted id"
	IntentForeign   Intent = "the other account's id"
	IntentDropped   Intent = "a live id with its last character dropped"
	IntentAppended  Intent = "a live id with a character appended"
	IntentZeros     Intent = "a live id with leading zeros"
	IntentNext      Intent = "one past a live id"
	IntentOtherKind Intent = "another kind's id"
	IntentChanged   Intent = "a live id with one character changed"
	IntentUpper     Intent = "a live id in upper case"
	IntentNeverSeen Intent = "an id no resource has"
)

// State is a state of a resource a state dimension aims at: a machine's
// state, a collection empty or not, or what an operation left.
type State struct {
	// Field and Value: the machine field's state ("status", "running").
	Field, Value string
	// Coll and Items: a collection, empty (false) or not.
	Coll  string
	Items bool
	// After: the operation that wrote it last (an update, an effect).
	After string
	// By: the id parameter of a kind whose records name it (x-predict
	// on-delete): a model with conversations, a dataset with models.
	By string
}

// String renders a state as dimensions name it.
func (s State) String() string {
	switch {
	case s.Field != "":
		return s.Field + " " + s.Value
	case s.Coll != "" && s.Items:
		return "with " + s.Coll
	case s.Coll != "":
		return "without " + s.Coll
	case s.By != "":
		return "with " + relatedWord(s.By)
	}
	return "after " + s.After
}

// Derive lists every dimension of every operation of the catalog, grouped
// by operation (in the catalog's order) and within it by family.
func (c *Catalog) Derive() []Dimension {
	var out []Dimension
	for _, op := range c.Ops {
		out = append(out, c.DeriveOp(op)...)
	}
	return out
}

// DeriveOp lists the dimensions of one operation.
func (c *Catalog) DeriveOp(op *Op) []Dimension {
	var out []Dimension
	add := func(ds ...Dimension) {
		for _, d := range ds {
			d.Op = op.ID
			out = append(out, d)
		}
	}
	for _, f := range op.Fields {
		add(valueDims(op, f)...)
	}
	for _, f := range op.IDs {
		if !f.Required {
			add(Dimension{Family: FamilyValue, Field: f.Loc(), Name: f.Loc() + " = absent", Value: &Value{Absent: true}})
		}
	}
	add(alternativeDims(op)...)
	add(encodingDims(op)...)
	add(wireDims(op)...) // transport.go: how a request is carried, text from every plane
	add(nameDims(op)...)
	add(idDims(op)...)
	add(c.pairDims(op)...)
	add(c.repeatDims(op)...)
	add(burstDims(op)...)
	add(c.stateDims(op)...)
	add(readingDims(op)...)
	seen := map[string]bool{}
	for _, d := range out {
		if seen[d.Name] {
			panic(fmt.Sprintf("inputs: %s has two dimensions named %q", op.ID, d.Name))
		}
		seen[d.Name] = true
	}
	return out
}

// Keys are the keys of ds, sorted.
func Keys(ds []Dimension) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Key()
	}
	sort.Strings(out)
	return slices.Compact(out)
}
