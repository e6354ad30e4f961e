package drive

import (
	"fmt"
	"slices"

	"contractkit/conformance/inputs"
)

// Complete by construction, on the input side: every dimension the
// contract gives (package inputs) has a generator here, and a run sends
// it. A field, a parameter, a mark or an operation added to the contract
// adds dimensions; until the driver can send them, Complete names them.

// Generator says whether the driver can send the dimension d of the
// catalog c: nil when it can, else what it lacks.
func Generator(c *inputs.Catalog, d inputs.Dimension) error {
	op := c.Op(d.Op)
	if op == nil {
		return fmt.Errorf("no operation %s", d.Op)
	}
	switch d.Family {
	case inputs.FamilyValue:
		f := op.Field(d.Field)
		if f == nil {
			return fmt.Errorf("no field %s", d.Field)
		}
		v := d.Value
		if v.Absent || v.HasLiteral || f == op.Files || f.Split != nil {
			return nil
		}
		if v.Alt > 0 {
			return nil
		}
		switch f.Type() {
		case "string", "integer", "number", "boolean", "array", "object":
			return nil
		}
		return fmt.Errorf("no value generator for %s, a field of no single type", d.Field)
	case inputs.FamilyAlternative:
		for _, m := range d.Group.Members {
			if op.Field(m) == nil {
				return fmt.Errorf("x-alternatives names %s, which the operation does not have", m)
			}
		}
		return nil
	case inputs.FamilyEncoding:
		e := d.Encoding
		if e.Header == "Content-Type" || e.Header == "Accept" || slices.Contains(tricks, e.Trick) || slices.Contains(wireTricks, e.Trick) {
			return nil
		}
		return fmt.Errorf("no generator for the encoding %q", d.Name)
	case inputs.FamilyID:
		if slices.Contains(intents, d.Intent) {
			return nil
		}
		return fmt.Errorf("no generator for the intent %q", d.Intent)
	case inputs.FamilyPair:
		for _, f := range d.Faults {
			if err := faultGenerator(c, op, f); err != nil {
				return err
			}
		}
		return nil
	case inputs.FamilyRepeat:
		if d.Fault == "" {
			if op.Kind == nil || op.Kind.Create == nil {
				return fmt.Errorf("a delete repeated needs a create of %s", d.Op)
			}
			return nil
		}
		return faultGenerator(c, op, d.Fault)
	case inputs.FamilyBurst:
		return nil
	case inputs.FamilyState:
		return stateGenerator(c, d)
	case inputs.FamilyReading:
		if d.Reading == nil || op.Field(d.Field) == nil {
			return fmt.Errorf("the reading names %s, which the operation does not have", d.Field)
		}
		if f := op.Field(d.Field); d.Reading.Alias == "" && f.In == "form" {
			return fmt.Errorf("no generator for a reading of another JSON type in a form (%s)", d.Field)
		}
		return nil
	}
	return fmt.Errorf("no generator for the family %q", d.Family)
}

// tricks and intents are the encodings' body changes and the id intents
// the driver sends (encode.go, ids.go).
var (
	tricks = []string{inputs.TrickNoBody, inputs.TrickTwoParts, inputs.TrickNonASCII, inputs.TrickQuoting,
		inputs.TrickFileName, inputs.TrickEscaped, inputs.TrickQuotedText}
	intents = []inputs.Intent{inputs.IntentDeleted, inputs.IntentForeign, inputs.IntentNeverSeen, inputs.IntentNext,
		inputs.IntentChanged, inputs.IntentDropped, inputs.IntentAppended, inputs.IntentZeros, inputs.IntentUpper, inputs.IntentOtherKind}
)

// faultGenerator says whether the driver can give a call of op the fault.
func faultGenerator(c *inputs.Catalog, op *inputs.Op, f inputs.Fault) error {
	switch f {
	case inputs.FaultKey, inputs.FaultMedia, inputs.FaultSize, inputs.FaultSyntax, inputs.FaultReference:
		return nil
	case inputs.FaultSchema:
		if inputs.SchemaFault(op) == nil {
			return fmt.Errorf("%s: no field to break its schema", op.ID)
		}
		return nil
	case inputs.FaultRule:
		for _, r := range op.Rules {
			if !r.Reads && !Breakable(r.Rule) {
				return fmt.Errorf("%s: no generator breaks the x-refuse rule %q", op.ID, r.Rule)
			}
		}
		return nil
	case inputs.FaultConflict:
		return nil
	}
	return fmt.Errorf("no generator for the fault %q", f)
}

// stateGenerator says whether the tour can put a resource in the state.
func stateGenerator(c *inputs.Catalog, d inputs.Dimension) error {
	k, s := d.Kind, d.State
	switch {
	case k.Create == nil:
		return fmt.Errorf("a %s in a state needs a create", k.Word())
	case s.After != "" && c.Op(s.After) == nil:
		return fmt.Errorf("no operation %s", s.After)
	case s.Field != "" && k.Machine == nil:
		return fmt.Errorf("%s has no machine", k.Word())
	case s.By != "" && (c.Kind(s.By) == nil || c.Kind(s.By).Create == nil):
		return fmt.Errorf("a %s with %s needs a create of them", k.Word(), s)
	}
	return nil
}

// Complete lists what the run r did not do of the catalog c's dimensions:
// each without a generator, and each the run did not send for no reason it
// gave. The run may be of another catalog: a dimension it never derived is
// one it never sent.
func Complete(c *inputs.Catalog, r *Run) []string {
	var out []string
	for _, d := range c.Derive() {
		switch err := Generator(c, d); {
		case err != nil:
			out = append(out, fmt.Sprintf("%s: %v", d.Key(), err))
		case r.Reached[d.Key()] == 0 && r.Why[d.Key()] == "":
			out = append(out, fmt.Sprintf("%s: not reached by the run", d.Key()))
		}
	}
	return out
}
