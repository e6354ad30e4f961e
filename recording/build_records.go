package recording

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"contractkit/fixtures"
)

// modelStates maps the model statuses a server may send (D-11: pending,
// training, ready, failed; real servers have their own words) to the states
// a fixture model can hold. A model still pending or training is recorded
// as it was seen (a fixture's state reads back so at once): the mock then
// trains it on its --train-duration from there.
var modelStates = map[string]string{
	"ready": fixtures.StateReady, "completed": fixtures.StateReady, "trained": fixtures.StateReady,
	"active": fixtures.StateReady, "succeeded": fixtures.StateReady,
	"failed": fixtures.StateFailed, "error": fixtures.StateFailed,
	"pending": fixtures.StatePending, "queued": fixtures.StatePending,
	"training": fixtures.StateTraining, "running": fixtures.StateTraining, "in_progress": fixtures.StateTraining,
}

// evalStatuses maps the four statuses of seed §3.1 to a fixture's. A running
// evaluation is recorded as pending, the state it ran from: a preload's
// running one would run again, for the mock's --eval-duration, at every
// reset; a pending one can be started again.
var evalStatuses = map[string]string{
	"pending": fixtures.StatusPending, "running": fixtures.StatusPending,
	"completed": fixtures.StatusCompleted, "failed": fixtures.StatusFailed,
}

// models returns the fixture key of each recorded model id.
func (b *builder) models(datasets map[int64]string) map[int64]string {
	keys := map[int64]string{}
	names := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(b.a.models)) {
		m := b.a.models[id]
		what := fmt.Sprintf("model %d", id)
		ds, ok := datasets[m.datasetID]
		if !ok {
			b.skip("%s %q: its dataset %d is not in the recording", what, b.redact(m.name), m.datasetID)
			continue
		}
		name := b.name(what, m.name, names)
		if name == "" {
			continue
		}
		state := fixtures.StateReady
		if m.status != "" {
			s, ok := modelStates[strings.ToLower(m.status)]
			if !ok {
				b.change("%s %q: status %q recorded as %q", what, name, m.status, fixtures.StateReady)
				s = fixtures.StateReady
			} else if s != m.status {
				b.change("%s %q: status %q recorded as %q", what, name, m.status, s)
			}
			state = s
		}
		fineTune := strings.ToLower(m.fineTune)
		if !slices.Contains([]string{fixtures.FineTuneLoRA, fixtures.FineTuneQLoRA, fixtures.FineTuneFull}, fineTune) {
			if m.fineTune != "" {
				b.change("%s %q: fine_tune %q recorded as %q", what, name, m.fineTune, fixtures.FineTuneLoRA)
			}
			fineTune = fixtures.FineTuneLoRA // the contract's default (D-11)
		}
		key := fmt.Sprintf("model-%d", id)
		b.out.set.Models = append(b.out.set.Models, fixtures.Model{
			ID: b.keepID(what, id), Key: key, Name: name, Description: b.redact(m.description), Dataset: ds,
			Category: b.redact(m.category), BaseModelName: b.redact(m.baseModelName), FineTune: fineTune, State: state,
		})
		keys[id] = key
	}
	return keys
}

var messageRoles = []string{fixtures.RoleUser, fixtures.RoleAssistant, fixtures.RoleSystem}

func (b *builder) conversations(models map[int64]string) {
	convs := slices.SortedFunc(maps.Values(b.a.conversations), func(x, y *conversation) int { return cmp.Compare(x.seq, y.seq) })
	// Oldest first, by the server's created_at when every one has it (a
	// list shows them newest first, so the order first seen may be the
	// reverse); else in the order first seen.
	if !slices.ContainsFunc(convs, func(c *conversation) bool { return c.createdAt.IsZero() }) {
		slices.SortStableFunc(convs, func(x, y *conversation) int { return x.createdAt.Compare(y.createdAt) })
	}
	titles := map[string]bool{}
	for _, c := range convs {
		what := fmt.Sprintf("conversation %s", c.id)
		mk, ok := models[c.modelID]
		if !ok {
			b.skip("%s: its model %d is not in the recording", what, c.modelID)
			continue
		}
		// Untitled is the API's default (seed §2.4), and what a conversation
		// seen only through inference or its messages is recorded as.
		title := b.redact(c.title)
		if strings.TrimSpace(title) == "" {
			title = ""
		}
		if title != "" && titles[title] {
			b.skip("%s: title %q is already another recorded conversation's (titles are unique in a fixture set)", what, title)
			continue
		}
		titles[title] = true
		fc := fixtures.Conversation{Model: mk, Title: title, Messages: []fixtures.Message{}}
		for i, m := range c.messages {
			content := b.redact(m.content)
			if !slices.Contains(messageRoles, m.role) || strings.TrimSpace(content) == "" {
				b.skip("%s: message %d left out: role %q is not user, assistant or system, or its content is empty", what, i+1, m.role)
				continue
			}
			fc.Messages = append(fc.Messages, fixtures.Message{Role: m.role, Content: content})
		}
		b.out.set.Conversations = append(b.out.set.Conversations, fc)
	}
}

func (b *builder) evaluations(models map[int64]string) {
	names := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(b.a.evaluations)) {
		e := b.a.evaluations[id]
		what := fmt.Sprintf("evaluation %d", id)
		mk, ok := models[e.modelID]
		if !ok {
			b.skip("%s %q: its model %d is not in the recording", what, b.redact(e.name), e.modelID)
			continue
		}
		status, ok := evalStatuses[e.status]
		switch {
		case !slices.Contains([]string{fixtures.EvalTypeRagas, fixtures.EvalTypeBenchmark}, e.typ):
			b.skip("%s %q: type %q is not one a fixture holds (ragas, benchmark)", what, b.redact(e.name), e.typ)
			continue
		case !slices.Contains([]string{fixtures.BenchmarkBEIR, fixtures.BenchmarkSQuAD, fixtures.BenchmarkCustom}, e.benchmark):
			b.skip("%s %q: benchmark_type %q is not one a fixture holds (beir, squad, custom)", what, b.redact(e.name), e.benchmark)
			continue
		case e.questionCount < 1:
			b.skip("%s %q: question_count %d is not positive", what, b.redact(e.name), e.questionCount)
			continue
		case !ok:
			b.skip("%s %q: status %q is not one of seed §3.1", what, b.redact(e.name), e.status)
			continue
		}
		name := b.name(what, e.name, names)
		if name == "" {
			continue
		}
		if status != e.status {
			b.change("%s %q: status %q recorded as %q", what, name, e.status, status)
		}
		b.out.set.Evaluations = append(b.out.set.Evaluations, fixtures.Evaluation{
			ID: b.keepID(what, id), Name: name, Model: mk, Type: e.typ, BenchmarkType: e.benchmark,
			QuestionCount: e.questionCount, Description: b.redact(e.description), Status: status,
		})
	}
}
