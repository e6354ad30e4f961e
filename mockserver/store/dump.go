package store

import "time"

// Dump is an account's whole state, for the admin endpoint: what a frontend
// developer inspects when a screen shows something unexpected.
type Dump struct {
	Now             time.Time          `json:"now"`
	ClockOffset     string             `json:"clock_offset"`
	Models          []ModelView        `json:"models"`
	Datasets        []DatasetView      `json:"datasets"`
	DeletedDatasets []DatasetView      `json:"deleted_datasets"`
	Conversations   []ConversationDump `json:"conversations"`
	Evaluations     []EvaluationView   `json:"evaluations"`
}

// ConversationDump is a conversation with its messages.
type ConversationDump struct {
	ConversationView
	Messages []MessageView `json:"messages"`
}

// Dump snapshots the account.
func (a *Account) Dump() Dump {
	models := a.Models()
	live := a.Datasets()
	a.mu.Lock()
	defer a.mu.Unlock()
	out := Dump{
		Now: a.now(), ClockOffset: a.clock.Offset().String(), Models: models, Datasets: live,
		DeletedDatasets: []DatasetView{}, Conversations: []ConversationDump{}, Evaluations: []EvaluationView{},
	}
	for _, id := range sortedKeys(a.datasets) {
		if d := a.datasets[id]; d.deleted {
			out.DeletedDatasets = append(out.DeletedDatasets, d.view())
		}
	}
	for _, id := range sortedKeys(a.conversations) {
		c := a.conversations[id]
		out.Conversations = append(out.Conversations, ConversationDump{ConversationView: c.view(), Messages: c.messageViews()})
	}
	for _, id := range sortedKeys(a.evaluations) {
		out.Evaluations = append(out.Evaluations, a.evaluationView(a.evaluations[id]))
	}
	return out
}
