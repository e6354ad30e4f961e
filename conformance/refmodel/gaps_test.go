package refmodel

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// load reads a contract as the model does (kin-openapi, refs resolved).
func load(t *testing.T, raw []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return doc
}

// The model is complete by construction: every field of every answer of
// the contract has a prediction rule or an exemption with its reason.
func TestEveryFieldOfEveryAnswerIsPredicted(t *testing.T) {
	for _, g := range Gaps(spec.Strict().Kin) {
		t.Errorf("%s", g)
	}
}

// A field added to the contract without a mark, a mark naming a rule the
// model does not implement, or one missing what its rule needs, is a gap,
// named by its pointer in the document — wherever it stands: a resource,
// an inline object, a list's items, the stream's chunk, an error body.
func TestGapsNameWhatIsMissing(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"a new field of a resource",
			"        total_messages: { type: integer, x-predict: { rule: count, of: messages, decision: D-33 } }",
			"        total_messages: { type: integer, x-predict: { rule: count, of: messages, decision: D-33 } }\n        mood: { type: string }",
			"/components/schemas/Conversation/properties/mood: no x-predict"},
		{"a new field of an inline object",
			"            status: { type: string, nullable: true, x-predict: { rule: ref, via: model_id, field: status, gone: 'null', decision: D-32 } }",
			"            status: { type: string, nullable: true, x-predict: { rule: ref, via: model_id, field: status, gone: 'null', decision: D-32 } }\n            owner: { type: string }",
			"/components/schemas/Evaluation/properties/model/properties/owner: no x-predict"},
		{"a new field of the stream's chunk",
			"        message: { type: string, x-predict: { rule: free, reason: 'the text of an error chunk",
			"        stage: { type: string }\n        message: { type: string, x-predict: { rule: free, reason: 'the text of an error chunk",
			"/components/schemas/ErrorChunk/properties/stage: no x-predict"},
		{"a new field of the error body",
			"        message: { type: string, x-predict: { rule: free, reason: message texts are not shown (§7), seed: '7' } }\n      additionalProperties: true",
			"        message: { type: string, x-predict: { rule: free, reason: message texts are not shown (§7), seed: '7' } }\n        code: { type: integer }\n      additionalProperties: true",
			"/components/schemas/ErrorEnvelope/properties/code: no x-predict"},
		{"a field of a oneOf branch",
			"        total_size: { type: integer, default: 0,",
			"        origin:\n          oneOf:\n            - { type: object, properties: { url: { type: string, x-predict: { rule: free, reason: test } } } }\n            - { type: object, properties: { path: { type: string } } }\n        total_size: { type: integer, default: 0,",
			"/components/schemas/UploadResult/properties/origin/oneOf/1/properties/path: no x-predict"},
		{"a rule the model does not implement",
			"x-predict: { rule: count, of: messages, decision: D-33 }",
			"x-predict: { rule: tally, of: messages, decision: D-33 }",
			`/components/schemas/Conversation/properties/total_messages: x-predict names rule "tally"`},
		{"a rule without what it needs",
			"x-predict: { rule: count, of: messages, decision: D-33 }",
			"x-predict: { rule: count, decision: D-33 }",
			`/components/schemas/Conversation/properties/total_messages: rule count needs "of"`},
		{"an exemption without its reason",
			"x-predict: { rule: free, reason: message texts are not shown (§7), seed: '2.10' } }\n        model_id",
			"x-predict: { rule: free, seed: '2.10' } }\n        model_id",
			"/components/schemas/EvaluationStart/properties/message: rule free needs a reason"},
		{"an effect the model does not implement",
			"        - { rule: scores, samples: samples",
			"        - { rule: tally, samples: samples",
			`/paths/~1api~1v1~1evaluations~1{evaluation_id}~1run-ragas/post: x-effect names rule "tally"`},
		{"a refusal the model does not implement",
			"x-refuse: [ { rule: among,",
			"x-refuse: [ { rule: amongst,",
			`/components/schemas/RagasRequest/properties/selected_questions: x-refuse names rule "amongst"`},
		{"a prediction resting on nothing",
			"x-predict: { rule: count, of: messages, decision: D-33 }",
			"x-predict: { rule: count, of: messages }",
			"/components/schemas/Conversation/properties/total_messages: rule count rests on nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(string(spec.Document), tc.from, tc.to, 1)
			if doc == string(spec.Document) {
				t.Fatal("test fixture: text not found")
			}
			var got []string
			for _, g := range Gaps(load(t, []byte(doc))) {
				got = append(got, g.String())
			}
			if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, tc.want) }) {
				t.Errorf("gaps %q, want one starting %q", got, tc.want)
			}
		})
	}
}

// Every decision a mark rests on is a row of DECISIONS.md, and every
// clause a section of the reference.
func TestMarksRestOnRecordedDecisions(t *testing.T) {
	md, err := os.ReadFile("../../spec/DECISIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| (D-[0-9]{2}) \|`).FindAllStringSubmatch(string(md), -1) {
		rows[m[1]] = true
	}
	sections := regexp.MustCompile(`^([1-9])(\.([0-9]{1,2}))?`)
	known := map[string]bool{"1": true, "2": true, "3": true, "4": true, "5": true, "6": true, "7": true, "8": true, "9": true}
	for _, s := range []string{"2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10", "2.11", "3.1", "3.2", "3.3", "4.1", "4.2", "4.3", "4.4", "4.5"} {
		known[s] = true
	}
	c := newCatalog(spec.Strict().Kin)
	check := func(where, seed, decision string) {
		if decision != "" && !rows[decision] {
			t.Errorf("%s: decision %s is not a row of DECISIONS.md", where, decision)
		}
		if m := sections.FindStringSubmatch(seed); seed != "" && (m == nil || !known[m[0]] && !known[m[1]]) {
			t.Errorf("%s: clause %s is not a section of the reference", where, seed)
		}
	}
	seen := map[*shape]bool{}
	var visit func(s *shape)
	visit = func(s *shape) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.mark != nil {
			check(s.mark.ptr, s.mark.seed, s.mark.decision)
		}
		for _, p := range s.props {
			visit(p)
		}
		visit(s.items)
	}
	for _, op := range c.list {
		visit(op.success)
		visit(op.failure)
		visit(op.chunk)
		for _, e := range op.effects {
			seed, _ := e.params["seed"].(string)
			decision, _ := e.params["decision"].(string)
			_, refusal := e.refusal()
			check(op.id+" x-effect "+e.rule, seed, decision)
			check(op.id+" x-effect "+e.rule+" refusal", "", refusal)
		}
		for _, e := range op.refuses {
			_, decision := e.refusal()
			check(op.id+" x-refuse "+e.rule, "", decision)
		}
	}
	if len(seen) < 50 {
		t.Fatalf("visited %d shapes: the walk did not reach the answers", len(seen))
	}
}
