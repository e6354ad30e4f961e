package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// readConversation: a create or rename answers one Conversation (§4.2).
func readConversation(a *account, x Exchange, in request) string {
	id := in.id
	var w conversationWire
	if json.Unmarshal(payload(x.ResponseBody), &w) != nil {
		return "conversation: the answer is not a conversation"
	}
	if !w.ID.ok || w.ID.v == "" {
		w.ID = optString{v: unescape(id), ok: id != ""}
	}
	if !w.ID.ok {
		return "conversation: the answer holds no conversation id"
	}
	a.conversation(w.ID.v).merge(w)
	return ""
}

// listConversations upserts the listed conversations. The list is of one
// model and paged (§4.2, D-06), so what it lacks is not taken as deleted.
func listConversations(a *account, x Exchange, _ request) string {
	var ws []conversationWire
	if json.Unmarshal(payload(x.ResponseBody), &ws) != nil {
		return "conversation list: the answer is not a list"
	}
	for _, w := range ws {
		if w.ID.ok && w.ID.v != "" {
			a.conversation(w.ID.v).merge(w)
		}
	}
	return ""
}

func deleteConversation(a *account, _ Exchange, in request) string {
	id := in.id
	delete(a.conversations, unescape(id))
	return ""
}

// readMessages: the message list (§4.2) is what the conversation holds from
// its offset on (D-06 pages it; messages oldest first).
func readMessages(a *account, x Exchange, in request) string {
	id := in.id
	id = unescape(id)
	if x.Status == http.StatusNotFound {
		delete(a.conversations, id)
		return ""
	}
	var ws []messageWire
	if json.Unmarshal(payload(x.ResponseBody), &ws) != nil {
		return "message list: the answer is not a list"
	}
	q, _ := url.ParseQuery(x.RawQuery)
	offset, _ := strconv.Atoi(q.Get("offset"))
	c := a.conversation(id)
	if offset < 0 || offset > len(c.messages) {
		return "message list: a page after messages never seen"
	}
	c.messages = c.messages[:offset]
	for _, w := range ws {
		c.messages = append(c.messages, message{role: w.Role, content: w.Content})
	}
	return ""
}

// appendExchange: an exchange continued in a conversation (the x-effect
// rule "exchange", D-23) makes the question and the answer its next two
// messages; the answer is the stream's token/delta chunks joined (§4.4,
// D-03), or one JSON result (D-04). A conversation first seen here takes
// the request's model.
func appendExchange(a *account, id string, roles [2]string, question, answer string, body map[string]any) {
	c := a.conversation(id)
	if c.modelID == 0 {
		var m flexID
		if raw, err := json.Marshal(body["model_id"]); err == nil {
			_ = m.UnmarshalJSON(raw)
		}
		if m.ok {
			c.modelID = m.v
		}
	}
	c.messages = append(c.messages, message{role: roles[0], content: question})
	if answer != "" {
		c.messages = append(c.messages, message{role: roles[1], content: answer})
	}
}

// answerText joins an inference answer's text.
func answerText(x Exchange) (string, bool) {
	mt, _, _ := mime.ParseMediaType(x.ResponseHeader.Get("Content-Type"))
	if mt == "application/json" {
		var r struct {
			Response string `json:"response"`
		}
		if json.Unmarshal(payload(x.ResponseBody), &r) != nil {
			return "", false
		}
		return r.Response, true
	}
	if mt != "text/event-stream" {
		return "", false
	}
	var b strings.Builder
	// An event's data is its `data:` lines joined by newlines, ended by a
	// blank line (the event-stream format); an unended last event counts.
	var data []string
	flush := func() {
		var c struct {
			Type    string `json:"type"`
			Content string `json:"content"`
		}
		if len(data) > 0 && json.Unmarshal([]byte(strings.Join(data, "\n")), &c) == nil && (c.Type == "token" || c.Type == "delta") {
			b.WriteString(c.Content)
		}
		data = data[:0] // [DONE], or an event that is not a chunk, adds nothing
	}
	sc := bufio.NewScanner(bytes.NewReader(x.ResponseBody))
	sc.Buffer(nil, len(x.ResponseBody)+1)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			flush()
			continue
		}
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
		}
	}
	flush()
	return b.String(), true
}

func (a *account) conversation(id string) *conversation {
	c := a.conversations[id]
	if c == nil {
		a.convSeq++
		c = &conversation{id: id, seq: a.convSeq}
		a.conversations[id] = c
	}
	return c
}

func (c *conversation) merge(w conversationWire) {
	w.Title.to(&c.title)
	if t, err := time.Parse(time.RFC3339Nano, w.CreatedAt.v); err == nil {
		c.createdAt = t
	}
	if w.ModelID.ok {
		c.modelID = w.ModelID.v
	}
}

func unescape(s string) string {
	if p, err := url.PathUnescape(s); err == nil {
		return p
	}
	return s
}
