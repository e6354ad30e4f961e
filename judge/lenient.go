package judge

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"contractkit/spec"
)

// The lenient readings the contract decides (x-lenient marks, D-21),
// applied in one place: a request whose body breaks the declared schema is
// read as a lenient server reads it — a field under another name moved to
// its declared name, a value of another type turned into the declared
// one — and each reading that applied is a finding of the client's, class
// Decided: the client departs from the seed's table, and the contract
// decides that a server may still serve it.

// readLeniently applies op's readings to a JSON object body. It returns
// the body as read and a finding per reading applied; read is nil when no
// reading applied (or the body is not a JSON object).
func (j *Judge) readLeniently(op string, body []byte) (read []byte, readings Findings) {
	rs := j.strict.Readings(op)
	if len(rs) == 0 {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return nil, nil
	}
	for _, r := range rs {
		switch {
		case r.Alias != "":
			v, ok := obj[r.Alias]
			if _, taken := obj[r.Field]; !ok || taken {
				continue
			}
			obj[r.Field] = v
			delete(obj, r.Alias)
			readings = append(readings, reading(op, r, Pointer(r.Alias), r.Field, r.Alias))
		case r.Type != "":
			v, ok := obj[r.Field]
			if !ok {
				continue
			}
			if nv, ok := readAs(v, r.Type); ok {
				obj[r.Field] = nv
				readings = append(readings, reading(op, r, Pointer(r.Field), declaredType(r.Type), string(bytes.TrimSpace(v))))
			}
		}
	}
	if len(readings) == 0 {
		return nil, nil
	}
	read, err := json.Marshal(obj)
	if err != nil {
		return nil, nil
	}
	return read, readings
}

// readPartNames reports the multipart parts of op sent under an alias of
// a declared field (a `file` part for `files`): the client's deviation,
// read by the contract's readings. A multipart body's shape is otherwise
// the server's to judge (see Request).
func (j *Judge) readPartNames(op string, names []string) Findings {
	var out Findings
	for _, r := range j.strict.Readings(op) {
		if r.Alias != "" && slices.Contains(names, r.Alias) && !slices.Contains(names, r.Field) {
			out = append(out, reading(op, r, "part:"+r.Alias, r.Field, r.Alias))
		}
	}
	return out
}

func reading(op string, r spec.Reading, pointer, expected, got string) Finding {
	return Finding{Operation: op, Side: Client, Pointer: pointer, Rule: RuleLenient,
		Expected: expected, Got: got, Decision: r.Decision, Class: Decided}
}

// readAs turns a value of JSON type t into the declared type it is read
// as: an integer into its decimal string, a string holding an integer
// into the integer. ok is false when v is not of that form.
func readAs(v json.RawMessage, t string) (json.RawMessage, bool) {
	v = bytes.TrimSpace(v)
	switch t {
	case "integer":
		if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
			return nil, false
		}
		return json.RawMessage(strconv.Quote(string(v))), true
	case "string":
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), true
	}
	return nil, false
}

// declaredType names the type a value of JSON type t is read as.
func declaredType(t string) string {
	if t == "integer" {
		return "a string"
	}
	return "an integer"
}
