package judge

import "sort"

// Reading list answers: the records of a list whatever its shape, and
// their ids.

// IDs returns the ids of the records of a list.
func IDs(items []J) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Get("id").ID())
	}
	return out
}

// Records finds the records of a list answer whatever its shape: data
// itself when it is an array, else the first array among data's fields.
// The shape of the model list is not shown in the seed (D-01).
func Records(data J) []J {
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
