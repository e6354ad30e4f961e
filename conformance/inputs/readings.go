package inputs

import (
	"fmt"

	"contractkit/spec"
)

// readingDims are the readings a server may give a request that departs
// from the seed's table (x-lenient marks, D-21), each sent on its own: a
// field under another name, a value of another JSON type, a file part
// under another name. A server may refuse each, or answer it exactly as
// the plain request.
func readingDims(op *Op) []Dimension {
	var out []Dimension
	for i := range op.Readings {
		r := &op.Readings[i]
		in := "body"
		if op.Media == "multipart/form-data" {
			in = "form"
		}
		out = append(out, Dimension{Family: FamilyReading, Field: in + ":" + r.Field, Name: ReadingName(in, *r), Reading: r})
	}
	return out
}

// ReadingName is the name of the dimension of a reading of a field in
// ("body", "form"): `body:name for body:model_name (x-lenient, D-21)`,
// `body:model_id as a string (x-lenient, D-21)`.
func ReadingName(in string, r spec.Reading) string {
	if r.Alias != "" {
		return fmt.Sprintf("%s:%s for %s:%s (x-lenient, %s)", in, r.Alias, in, r.Field, r.Decision)
	}
	word := jsonTypeWord(r.Type)
	return fmt.Sprintf("%s:%s as a%s %s (x-lenient, %s)", in, r.Field, article(word), word, r.Decision)
}

// jsonTypeWord names a JSON type in prose ("integer" → "number": JSON
// sends an integer as a number).
func jsonTypeWord(t string) string {
	if t == "integer" {
		return "number"
	}
	return t
}
