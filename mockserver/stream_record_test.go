package mockserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/store"
)

// D-30: a conversation keeps what its stream sent. A stream a fault ended
// (cut, stall, error) or a client left keeps the answer text that was
// written before it ended, never the text the client did not get; with no
// token written, no answer at all.

const recordQuery = "What does the handbook say about paid leave, remote work and expenses?"

// messagesOf lists the conversation's messages.
func messagesOf(t *testing.T, c *apiClient, conv string) []store.MessageView {
	t.Helper()
	var out []store.MessageView
	c.get("/api/v1/user/conversations/"+conv+"/messages").want(t, 200).data(t, &out)
	return out
}

// writtenText joins the content of the token chunks a stream wrote.
func writtenText(t *testing.T, written string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(written, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || !strings.HasPrefix(data, "{") {
			continue
		}
		var ch chunkJSON
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("a written chunk is not JSON: %q", data)
		}
		if ch.Type == "token" {
			b.WriteString(ch.Content)
		}
	}
	return b.String()
}

// wantExchange fails unless the conversation holds the question and, when
// answer is not "", that answer as its last message (none when "").
func wantExchange(t *testing.T, c *apiClient, conv, answer string) {
	t.Helper()
	msgs := messagesOf(t, c, conv)
	want := 2
	if answer == "" {
		want = 1
	}
	if len(msgs) != want || msgs[0].Role != "user" || msgs[0].Content != recordQuery {
		t.Fatalf("messages %+v: want the question and %d answer(s)", msgs, want-1)
	}
	if answer != "" && (msgs[1].Role != "assistant" || msgs[1].Content != answer) {
		t.Errorf("the stored answer is %q, want what the stream sent: %q", msgs[1].Content, answer)
	}
	var conversation store.ConversationView
	for _, cv := range c.conversationsOfAll(t) {
		if cv.ID == conv {
			conversation = cv
		}
	}
	if conversation.TotalMessages != want || conversation.Message != msgs[len(msgs)-1].Content {
		t.Errorf("the conversation says %d messages, latest %q; want %d, latest %q", conversation.TotalMessages, conversation.Message, want, msgs[len(msgs)-1].Content)
	}
}

// untilExchange waits (bounded) until the conversation's last message is
// answer; wantExchange then says what differs.
func untilExchange(t *testing.T, c *apiClient, conv, answer string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if msgs := messagesOf(t, c, conv); len(msgs) == 2 && msgs[1].Content == answer {
			return
		}
	}
}

// conversationsOfAll lists the conversations of every model of the account.
func (c *apiClient) conversationsOfAll(t *testing.T) []store.ConversationView {
	t.Helper()
	var out []store.ConversationView
	for _, m := range c.models() {
		out = append(out, c.conversations(m.ID, "")...)
	}
	return out
}

// recordServer is a server with one ready model and a conversation of it,
// its streams watched.
func recordServer(t *testing.T, interval time.Duration) (*apiClient, *streamWatch, map[string]any, string) {
	t.Helper()
	sw := newStreamWatch()
	ts := newTestServer(t, withoutFixtures(), withWrap(sw.wrap), withConfig(func(c *Config) { c.TokenInterval = interval }))
	c := ts.client(t, testKey1)
	m := c.readyModel("handbook", fixtureFile(t, "employee-handbook.md"))
	conv := c.createConversation(m.ID, "Record")
	return c, sw, map[string]any{"query": recordQuery, "model_id": m.ID, "conversation_id": conv.ID, "response_length_preference": "detailed"}, conv.ID
}

func TestAStreamThatEndsStoresItsWholeAnswer(t *testing.T) {
	c, sw, body, conv := recordServer(t, 0)
	res := c.ask(body)
	sw.waitReturned(t)
	if res.Text == "" || res.Text != writtenText(t, sw.text()) {
		t.Fatalf("the stream's text %q, written %q", res.Text, writtenText(t, sw.text()))
	}
	wantExchange(t, c, conv, res.Text)
}

func TestACutStreamStoresWhatWasSent(t *testing.T) {
	c, sw, body, conv := recordServer(t, 0)
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withJSON(body), withHeader("X-Mock-Stream-Fault", "cut"))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := parseStream(t, resp.Body)
	resp.Body.Close()
	sw.waitReturned(t)
	if res.DoneMarker || res.Tokens == 0 {
		t.Fatalf("the cut stream: [DONE] %v, %d tokens", res.DoneMarker, res.Tokens)
	}
	if got := writtenText(t, sw.text()); got != res.Text {
		t.Fatalf("written %q, received %q", got, res.Text)
	}
	wantExchange(t, c, conv, res.Text)
}

func TestAnErrorInTheStreamStoresWhatWasSent(t *testing.T) {
	c, sw, body, conv := recordServer(t, 0)
	res := c.ask(body, withHeader("X-Mock-Stream-Fault", "error"))
	sw.waitReturned(t)
	if res.count("error") != 1 || res.Tokens == 0 {
		t.Fatalf("the stream: %d error chunks, %d tokens", res.count("error"), res.Tokens)
	}
	wantExchange(t, c, conv, res.Text)
}

// A stalled stream has sent its first token: the conversation holds it
// while the stream hangs, and after the client leaves.
func TestAStalledStreamStoresWhatWasSent(t *testing.T) {
	c, sw, body, conv := recordServer(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds every read
	defer cancel()
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withContext(ctx), withJSON(body), withHeader("X-Mock-Stream-Fault", "stall"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sr := newSSEReader(resp.Body)
	var first string
	for first == "" {
		data, err := sr.next()
		if err != nil {
			t.Fatalf("the stream ended before its first token: %v", err)
		}
		var ch chunkJSON
		if json.Unmarshal([]byte(data), &ch) == nil && ch.Type == "token" {
			first = ch.Content
		}
	}
	// The mock stores the token right after writing it: the client may
	// read it a moment before the conversation holds it.
	untilExchange(t, c, conv, first) // while it hangs
	wantExchange(t, c, conv, first)
	cancel()
	sw.waitReturned(t)
	wantExchange(t, c, conv, first)
}

// A client that leaves mid-stream: the conversation keeps the text written
// before the stream noticed, a part of the answer, not all of it.
func TestAStreamTheClientLeftStoresWhatWasSent(t *testing.T) {
	c, sw, body, conv := recordServer(t, 20*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds every read
	defer cancel()
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withContext(ctx), withJSON(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sr := newSSEReader(resp.Body)
	readUntil(t, sr, "token")
	readUntil(t, sr, "token")
	cancel()
	sw.waitReturned(t)
	written := writtenText(t, sw.text())
	if strings.Contains(sw.text(), "[DONE]") {
		t.Fatal("the whole stream was written: the test needs a client that leaves first")
	}
	wantExchange(t, c, conv, written)
}

// A stream that ends before any token keeps the question, and no answer.
func TestAStreamWithoutTokensStoresNoAnswer(t *testing.T) {
	c, sw, body, conv := recordServer(t, time.Hour) // the first token would come in an hour
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withContext(ctx), withJSON(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readUntil(t, newSSEReader(resp.Body), "status")
	// While the answer is being written, the conversation shows the
	// question only: no text the client has not got.
	wantExchange(t, c, conv, "")
	cancel()
	sw.waitReturned(t)
	wantExchange(t, c, conv, "")
}
