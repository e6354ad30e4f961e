package store

import (
	"cmp"
	"slices"
	"time"

	"contractkit/mockserver/apierr"
)

type conversation struct {
	id string
	// seq orders conversations created within one clock tick (newest first).
	seq       int64
	modelID   int64
	title     string
	createdAt time.Time
	updatedAt time.Time
	messages  []message
}

type message struct {
	id        string
	role      string
	content   string
	createdAt time.Time
	// pending marks an answer still being streamed: its place is kept (a
	// question asked meanwhile comes after it), but it is not shown, saved
	// or counted until SettleAnswer gives it the text that was sent (D-30).
	pending bool
}

// ConversationView is a conversation as the API shows it (seed §2.4, D-09).
type ConversationView struct {
	ID               string     `json:"id"`
	ModelID          int64      `json:"model_id"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
	TotalMessages    int        `json:"total_messages"`
	Title            string     `json:"title"`
	Message          string     `json:"message"`
	MessageTimestamp *time.Time `json:"message_timestamp"`
}

// MessageView is one message (seed §2.5).
type MessageView struct {
	ID        string    `json:"id"`
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

func (c *conversation) view() ConversationView {
	v := ConversationView{
		ID: c.id, ModelID: c.modelID, CreatedAt: c.createdAt, UpdatedAt: c.updatedAt,
		Title: c.title,
	}
	for _, m := range c.messages {
		if !m.pending {
			v.TotalMessages++
			v.Message, v.MessageTimestamp = m.content, ptr(m.createdAt)
		}
	}
	return v
}

// CreateConversation opens a thread bound to a model of the account.
func (a *Account) CreateConversation(modelID int64, title string) (ConversationView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.models[modelID] == nil {
		return ConversationView{}, apierr.New(apierr.NotFound, "model %d not found", modelID)
	}
	now := a.now()
	c := &conversation{id: a.newUUID(), seq: a.nextSeq(), modelID: modelID, title: title, createdAt: now, updatedAt: now}
	a.conversations[c.id] = c
	var ch change
	if a.recording() { // the snapshot is only for the state log
		ch.Conversation = ptr(c.snap())
	}
	a.commit(ch)
	return c.view(), nil
}

// Conversations lists a model's conversations, newest first, paged (D-06).
func (a *Account) Conversations(modelID string, limit, offset int) ([]ConversationView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.model(modelID)
	if err != nil {
		return nil, err
	}
	var all []*conversation
	for _, c := range a.conversations {
		if c.modelID == m.id {
			all = append(all, c)
		}
	}
	slices.SortFunc(all, func(x, y *conversation) int {
		if c := y.createdAt.Compare(x.createdAt); c != 0 {
			return c
		}
		return cmp.Compare(y.seq, x.seq)
	})
	out := []ConversationView{}
	for i := offset; i < len(all) && len(out) < limit; i++ {
		out = append(out, all[i].view())
	}
	return out, nil
}

// RenameConversation sets a conversation's title.
func (a *Account) RenameConversation(id, title string) (ConversationView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, err := a.conversation(id)
	if err != nil {
		return ConversationView{}, err
	}
	c.title, c.updatedAt = title, a.now()
	a.commit(change{Conversation: ptr(c.snap())})
	return c.view(), nil
}

// DeleteConversation removes a conversation and all its messages.
func (a *Account) DeleteConversation(id string) (DeleteResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, err := a.conversation(id)
	if err != nil {
		return DeleteResult{}, err
	}
	delete(a.conversations, c.id)
	a.commit(change{Removed: &removed{Conversations: []string{c.id}}})
	return DeleteResult{Message: "Conversation deleted", ID: c.id}, nil
}

// Messages lists a conversation's messages, oldest first.
func (a *Account) Messages(id string) ([]MessageView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, err := a.conversation(id)
	if err != nil {
		return nil, err
	}
	return c.messageViews(), nil
}

func (c *conversation) messageViews() []MessageView {
	out := make([]MessageView, 0, len(c.messages))
	for _, m := range c.messages {
		if !m.pending {
			out = append(out, MessageView{ID: m.id, Role: m.role, Content: m.content, CreatedAt: m.createdAt})
		}
	}
	return out
}

func (a *Account) conversation(id string) (*conversation, error) {
	if c := a.conversations[id]; c != nil {
		return c, nil
	}
	return nil, apierr.New(apierr.NotFound, "conversation %s not found", quoteID(id))
}

// saved counts the messages before the i-th that are saved (not an answer
// still streaming): a message's place in a snapshot or a log record.
func (c *conversation) saved(i int) int {
	n := 0
	for _, m := range c.messages[:i] {
		if !m.pending {
			n++
		}
	}
	return n
}

// appendMessage records one message in c and returns its id; the caller
// holds a.mu.
func (a *Account) appendMessage(c *conversation, role, content string, at time.Time, pending bool) string {
	m := message{id: a.newUUID(), role: role, content: content, createdAt: at, pending: pending}
	c.messages = append(c.messages, m)
	c.updatedAt = at
	return m.id
}

// Conversation returns one conversation.
func (a *Account) Conversation(id string) (ConversationView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, err := a.conversation(id)
	if err != nil {
		return ConversationView{}, err
	}
	return c.view(), nil
}
