package inputs

import "strings"

// relations are the states of k that another kind's records give it by
// naming it (x-predict on-delete on their field, D-32): a model with
// conversations, a model with evaluations, a dataset with models. A
// delete or a read of k meets each, one relation at a time.
func (c *Catalog) relations(k *Kind) []State {
	var out []State
	for _, o := range c.Kinds {
		for _, ref := range o.Refs {
			if ref.Kind == k && o != k {
				out = append(out, State{By: o.Param})
				break
			}
		}
	}
	return out
}

// relatedWord is the kind of id parameter param in prose, plural
// ("conversation_id" → "conversations").
func relatedWord(param string) string { return strings.TrimSuffix(param, "_id") + "s" }
