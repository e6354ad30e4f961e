package conformance

import "sort"

// Reading list answers: the records of a list whatever its shape, and
// their ids.

// idsOf returns the ids of the records in a list.
func idsOf(items []J) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Get("id").ID())
	}
	return out
}

// records finds the records of a list response whatever its shape: data
// itself when it is an array, else the first array among data's fields.
// The shape of the model list is not shown in the seed (D-01).
func records(data J) []J {
	if data.IsArray() {
		return data.Items()
	}
	m, _ := data.Value().(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := data.Get(k); v.IsArray() {
			return v.Items()
		}
	}
	return nil
}
