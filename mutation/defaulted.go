package mutation

import (
	"encoding/json"
	"fmt"
	"net/http"

	"contractkit/spec"
)

// defaulted are mutants of a default the reference states inside a decided
// row: §2.1's Default column, which D-35 quotes, and §2.4's "default empty
// string", which D-09 repeats. A suite that takes the class of the row (or
// of the request field's default) reports them as decided differences and
// passes; one that classes a finding by the fact it breaks fails them. Only
// the reference model predicts what a field the create left out holds.
var defaulted = []Mutant{
	{Name: "model-description-empty-by-default", Area: "model", Model: true,
		Breaks: "a model created without a description shows \"\" (in its create, its reads and the list): §2.1's default is null (D-35 quotes it)",
		Answer: onOperation(opModelAnswers, jsonAnswer(func(_ *Exchange, status int, v any) any {
			if status == http.StatusOK {
				eachRecord(dig(v, "data"), func(m map[string]any) {
					if d, ok := m["description"]; ok && d == nil {
						m["description"] = ""
					}
				})
			}
			return v
		}))},
	{Name: "conversation-title-null-by-default", Area: "model", Model: true,
		Breaks: "a conversation created without a title shows null for it, at its create and in every list: §2.4's default is the empty string (D-09 repeats it)",
		Request: func(x *Exchange) {
			if !x.is(opCreateConversationOnly) || !isJSONType(x) || !x.keyed() {
				return
			}
			var body map[string]any
			if json.Unmarshal(peekBody(x, maxRewrittenBody()), &body) == nil && body != nil {
				if _, titled := body["title"]; !titled {
					x.Note = untitled
				}
			}
		},
		Answer: onOperation(opConversationAnswers, jsonAnswer(func(x *Exchange, status int, v any) any {
			if status != http.StatusOK {
				return v
			}
			eachRecord(dig(v, "data"), func(m map[string]any) {
				id := fmt.Sprint(m["id"])
				switch {
				case x.Note == untitled:
					untitledConversations.add(id)
				case x.is(opRenameConversation):
					untitledConversations.del(id) // a title written, "" included
				}
				if untitledConversations.has(id) && m["title"] == "" {
					m["title"] = nil
				}
			})
			return v
		}))},
}

// untitled notes a conversation create that sent no title.
const untitled = "untitled"

// untitledConversations are the conversations created without a title.
var untitledConversations idSet

// The answers that show a model, and a conversation, as records.
var (
	opCreateConversationOnly = ops(spec.OpCreateConversation)
	opModelAnswers           = ops(spec.OpCreateModel, spec.OpGetModel, spec.OpListModels)
	opConversationAnswers    = ops(spec.OpCreateConversation, spec.OpListConversations, spec.OpRenameConversation)
)

// eachRecord calls f on data when it is one record, or on each record of a
// list.
func eachRecord(data any, f func(map[string]any)) {
	switch d := data.(type) {
	case map[string]any:
		f(d)
	case []any:
		for _, it := range d {
			if m, ok := it.(map[string]any); ok {
				f(m)
			}
		}
	}
}
