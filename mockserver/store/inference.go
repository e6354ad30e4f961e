package store

import (
	"contractkit/mockserver/apierr"
	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/retrieval"
)

// Question is one inference request, validated against the contract.
type Question struct {
	Query          string
	ModelID        int64
	ConversationID string
	ThreadID       string
	MaxTokens      int
	Length         string
	BaseModel      bool
}

// Reply is the composed answer with what the stream's last chunk reports.
type Reply struct {
	retrieval.Answer
	ModelID        int64
	ModelName      string
	ConversationID string
	ThreadID       string
	// Passages are the retrieved passages the answer drew on (the stream's
	// context chunk).
	Passages []retrieval.Passage
}

// passagesPerAnswer is how many passages retrieval hands to the composer.
const passagesPerAnswer = 6

// Ask answers a question from the model's data (D-23). With a conversation,
// the question and the answer are stored in it before the answer is sent, so
// a client that leaves mid-stream still finds the exchange.
func (a *Account) Ask(q Question) (Reply, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	defer a.store.touch()
	m, err := a.model(idString(q.ModelID))
	if err != nil {
		return Reply{}, err
	}
	if lifecycle.TrainingState(m.training, a.now()).Status == lifecycle.StatusFailed {
		return Reply{}, apierr.New(apierr.Conflict, "model %d failed to train and cannot answer", m.id)
	}
	var conv *conversation
	if q.ConversationID != "" {
		if conv, err = a.conversation(q.ConversationID); err != nil {
			return Reply{}, err
		}
		if conv.modelID != m.id {
			return Reply{}, apierr.New(apierr.Invalid, "conversation_id: conversation %s belongs to model %d, not %d", conv.id, conv.modelID, m.id)
		}
	}
	var passages []retrieval.Passage
	if d := a.modelData(m); d != nil && !q.BaseModel {
		passages = d.index.Search(q.Query, passagesPerAnswer)
	}
	ans := retrieval.Compose(q.Query, passages, retrieval.Options{
		MaxTokens: q.MaxTokens, Length: q.Length, BaseModel: q.BaseModel,
		Seed: a.store.cfg.Seed, ModelName: m.name, Words: words,
	})
	thread := q.ThreadID
	if thread == "" {
		thread = a.newUUID()
	}
	if conv != nil {
		now := a.now()
		a.appendMessage(conv, "user", q.Query, now)
		a.appendMessage(conv, "assistant", ans.Text, now)
	}
	return Reply{Answer: ans, ModelID: m.id, ModelName: m.name, ConversationID: q.ConversationID, ThreadID: thread, Passages: passages}, nil
}
