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
	// Streamed says the answer goes out as a stream: its message in the
	// conversation waits for SettleAnswer, which gives it the text that
	// was sent (D-30). Otherwise the whole answer is stored at once.
	Streamed bool
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
	// AnswerID is the id of the streamed answer's message, which waits for
	// SettleAnswer ("" without a conversation or a stream).
	AnswerID string
}

// passagesPerAnswer is how many passages retrieval hands to the composer.
const passagesPerAnswer = 6

// Ask answers a question from the model's data (D-23). With a conversation,
// the question is stored in it at once; the answer too when it goes out
// whole, and when streamed only once SettleAnswer says what was sent
// (D-30): a stream cut or left halfway keeps half an answer, never text the
// client did not get.
func (a *Account) Ask(q Question) (Reply, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Every id the request names is resolved before what the resources
	// refuse is judged (D-48: an unknown id before a state).
	m, err := a.model(idString(q.ModelID))
	if err != nil {
		return Reply{}, err
	}
	var conv *conversation
	if q.ConversationID != "" {
		if conv, err = a.conversation(q.ConversationID); err != nil {
			return Reply{}, err
		}
	}
	if lifecycle.TrainingState(m.training, a.now()).Status == lifecycle.StatusFailed {
		return Reply{}, apierr.New(apierr.Conflict, "model %d failed to train and cannot answer", m.id)
	}
	if conv != nil && conv.modelID != m.id {
		return Reply{}, apierr.New(apierr.Invalid, "conversation_id: conversation %s belongs to model %d, not %d", conv.id, conv.modelID, m.id)
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
	var answerID string
	switch {
	case conv != nil:
		now, from := a.now(), len(conv.messages)
		a.appendMessage(conv, "user", q.Query, now, false)
		if q.Streamed {
			// Its place is kept; its text is what SettleAnswer is told.
			answerID = a.appendMessage(conv, "assistant", "", now, true)
		} else {
			a.appendMessage(conv, "assistant", ans.Text, now, false)
		}
		a.commit(change{Messages: &messagesAdded{Conversation: conv.id, At: conv.saved(from),
			Messages: conv.savedMessages(from), UpdatedAt: conv.updatedAt}})
	case q.ThreadID == "":
		a.commit(change{}) // a thread id was handed out
	}
	return Reply{Answer: ans, ModelID: m.id, ModelName: m.name, ConversationID: q.ConversationID, ThreadID: thread, Passages: passages, AnswerID: answerID}, nil
}

// SettleAnswer gives a streamed answer's message (Reply.AnswerID) the text
// the stream sent before it ended, however it ended; with no text the
// message is dropped (the conversation keeps the question alone). A
// conversation deleted meanwhile, or an answer settled already, is left as
// it is.
func (a *Account) SettleAnswer(conversationID, answerID, sent string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.conversations[conversationID]
	if c == nil {
		return
	}
	for i := range c.messages {
		m := &c.messages[i]
		if m.id != answerID || !m.pending {
			continue
		}
		if sent == "" {
			c.messages = append(c.messages[:i], c.messages[i+1:]...)
			a.store.touch() // nothing saved changed: the answer never was
			return
		}
		m.content, m.pending = sent, false
		c.updatedAt = a.now()
		a.commit(change{Messages: &messagesAdded{Conversation: c.id, At: c.saved(i),
			Messages: c.savedMessages(i)[:1], UpdatedAt: c.updatedAt}})
		return
	}
}
