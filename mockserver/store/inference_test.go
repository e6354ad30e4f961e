package store

import (
	"strings"
	"testing"
	"time"

	"contractkit/fixtures"
)

// A streamed answer's message waits, unseen and unsaved, for the text the
// stream sent (D-30); none sent, no message.
func TestSettleAnswerStoresWhatWasSent(t *testing.T) {
	s, _ := newStore(0, 10*time.Second)
	a := s.Account("account-1")
	if err := a.Preload(fixtures.Default()); err != nil {
		t.Fatal(err)
	}
	var model int64
	for _, m := range a.Models() {
		if *m.Status == "ready" {
			model = m.ID
		}
	}
	conv, err := a.CreateConversation(model, "Settle")
	if err != nil {
		t.Fatal(err)
	}
	ask := func() Reply {
		r, err := a.Ask(Question{Query: "How long is the warranty?", ModelID: model, ConversationID: conv.ID, Streamed: true})
		if err != nil || r.AnswerID == "" {
			t.Fatalf("Ask: %v, answer id %q", err, r.AnswerID)
		}
		return r
	}
	first, second := ask(), ask()
	if n := len(mustMessages(t, a, conv.ID)); n != 2 {
		t.Fatalf("while streaming: %d messages shown, want the two questions", n)
	}
	if snap, err := s.Snapshot(); err != nil || strings.Contains(string(snap), first.AnswerID) {
		t.Fatalf("a snapshot holds an answer still streaming (err %v)", err)
	}
	a.SettleAnswer(conv.ID, second.AnswerID, "")                  // nothing sent: no answer
	a.SettleAnswer(conv.ID, first.AnswerID, "Twenty")             // its first token
	a.SettleAnswer(conv.ID, first.AnswerID, "Twenty-four months") // settled already: kept as it was
	msgs := mustMessages(t, a, conv.ID)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role+":"+m.Content)
	}
	want := "user:How long is the warranty? assistant:Twenty user:How long is the warranty?"
	if strings.Join(roles, " ") != want {
		t.Errorf("messages %q, want %q (the answer in its place, after its question)", strings.Join(roles, " "), want)
	}
	if v, _ := a.Conversation(conv.ID); v.TotalMessages != 3 || v.Message != "How long is the warranty?" {
		t.Errorf("conversation: %d messages, latest %q", v.TotalMessages, v.Message)
	}
	if _, err := a.DeleteConversation(conv.ID); err != nil {
		t.Fatal(err)
	}
	a.SettleAnswer(conv.ID, first.AnswerID, "late") // a deleted conversation: nothing to do
}

func mustMessages(t *testing.T, a *Account, conv string) []MessageView {
	t.Helper()
	m, err := a.Messages(conv)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
