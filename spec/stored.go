package spec

// Stored reads a request field's x-stored mark (ext, the field schema's
// extensions): where the server keeps the value sent under name — its own
// name by default, another one ("as") —, whether it keeps it as sent at all
// ("none": kept is false), and the decision it rests on ("" when declared).
// The reference model and the explore phase read the mark through it.
func Stored(name string, ext map[string]any) (field, decision string, kept bool) {
	m, _ := ext["x-stored"].(map[string]any)
	switch {
	case m == nil:
		return name, "", true
	case m["none"] != nil:
		return "", "", false
	}
	field = name
	if as, ok := m["as"].(string); ok {
		field = as
	}
	decision, _ = m["decided"].(string)
	return field, decision, true
}
