package conformance

import (
	"testing"

	"contractkit/conformance/budget"
	"contractkit/spec"
)

// TestReadsOfEveryKind: every kind a run counts has a read that tells
// whether one is still there, from the contract; a kind without a GET of
// its item (a conversation) is read under it.
func TestReadsOfEveryKind(t *testing.T) {
	c := spec.Declared()
	kinds := budget.ResourcesOf(c)
	reads := readsOf(c, kinds)
	for param, k := range kinds {
		r, ok := reads[k]
		if !ok {
			t.Errorf("%s (%s): no GET tells whether one is still there", k, param)
			continue
		}
		if r.param != param {
			t.Errorf("%s: read %s names %s, want %s", k, r.path, r.param, param)
		}
	}
	if r := reads[budget.Kind("conversations")]; r.path != "/api/v1/user/conversations/{conversation_id}/messages" {
		t.Errorf("conversations are read at %q, want their messages", r.path)
	}
	if r := reads[budget.Kind("models")]; r.path != "/api/v1/user/model/{model_id}" {
		t.Errorf("models are read at %q, want the item", r.path)
	}
}
