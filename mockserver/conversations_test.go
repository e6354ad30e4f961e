package mockserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"contractkit/mockserver/store"
)

func TestConversationCreateAndList(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("chat", fixtureFile(t, "employee-handbook.md"))
	other := c.readyModel("other", fixtureFile(t, "pricing.json"))

	var untitled store.ConversationView
	c.post("/api/v1/user/conversations", map[string]any{"model_id": m.ID}).want(t, 200).data(t, &untitled)
	if untitled.Title != "" || untitled.TotalMessages != 0 || untitled.Message != "" || untitled.MessageTimestamp != nil || untitled.ModelID != m.ID {
		t.Errorf("new conversation got %+v, want title \"\", no messages, model %d", untitled, m.ID)
	}
	if _, err := uuid.Parse(untitled.ID); err != nil {
		t.Errorf("conversation id %q is not a UUID: %v", untitled.ID, err)
	}
	created := []string{untitled.ID}
	for i := range 4 {
		ts.clock.Advance(time.Second) // distinct created_at, so "newest first" is observable
		created = append(created, c.createConversation(m.ID, fmt.Sprintf("thread %d", i)).ID)
	}
	c.createConversation(other.ID, "of the other model")
	newestFirst := slices.Clone(created)
	slices.Reverse(newestFirst)

	convIDs := func(cs []store.ConversationView) []string {
		var out []string
		for _, cv := range cs {
			out = append(out, cv.ID)
		}
		return out
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"", newestFirst},
		{"&limit=2", newestFirst[:2]},
		{"&limit=2&offset=2", newestFirst[2:4]},
		{"&limit=100&offset=4", newestFirst[4:]},
		{"&offset=5", nil},
		{"&offset=1000000", nil},
		{"&limit=1", newestFirst[:1]},
	}
	for _, tc := range cases {
		if got := convIDs(c.conversations(m.ID, tc.query)); !slices.Equal(got, tc.want) {
			t.Errorf("conversations%s got %v, want %v", tc.query, got, tc.want)
		}
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=-1", "offset=-1", "offset=1000001", "limit=abc"} {
		c.get(fmt.Sprintf("/api/v1/user/conversations?model_id=%d&%s", m.ID, q)).wantError(t, 422)
	}
	c.get("/api/v1/user/conversations").wantError(t, 422, "model_id")
	c.get("/api/v1/user/conversations?model_id=987654").wantError(t, 404)

	t.Run("refusals", func(t *testing.T) {
		c := ts.client(t, c.key)
		c.post("/api/v1/user/conversations", map[string]any{"model_id": 987654, "title": "x"}).wantError(t, 404)
		c.post("/api/v1/user/conversations", map[string]any{"title": "x"}).wantError(t, 422, "model_id")
		c.post("/api/v1/user/conversations", map[string]any{"model_id": "seven"}).wantError(t, 422, "model_id")
		c.post("/api/v1/user/conversations", map[string]any{"model_id": m.ID, "title": fmt.Sprintf("%0256d", 1)}).wantError(t, 422, "title")
	})
}

func TestConversationRenameAndDelete(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("chat", fixtureFile(t, "employee-handbook.md"))
	conv := c.createConversation(m.ID, "first title")
	path := "/api/v1/user/conversations/" + conv.ID

	cases := []struct {
		name  string
		query string
		body  any
		want  string
	}{
		{name: "body", body: map[string]any{"title": "from the body"}, want: "from the body"},
		{name: "query", query: "?title=" + url.QueryEscape("from the query"), want: "from the query"},
		{name: "body wins over query", query: "?title=query", body: map[string]any{"title": "body"}, want: "body"},
		{name: "empty title", body: map[string]any{"title": ""}, want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.client(t, c.key)
			ts.clock.Advance(time.Second)
			var opts []reqOpt
			if tc.body != nil {
				opts = append(opts, withJSON(tc.body))
			}
			var v store.ConversationView
			c.do(http.MethodPatch, path+tc.query, opts...).want(t, 200).data(t, &v)
			if v.Title != tc.want {
				t.Errorf("title got %q, want %q", v.Title, tc.want)
			}
			if !v.UpdatedAt.After(v.CreatedAt) {
				t.Errorf("updated_at got %v, want after created_at %v", v.UpdatedAt, v.CreatedAt)
			}
			if got := c.conversations(m.ID, ""); len(got) != 1 || got[0].Title != tc.want {
				t.Errorf("listed conversation got %+v, want title %q", got, tc.want)
			}
		})
	}
	t.Run("refusals", func(t *testing.T) {
		c := ts.client(t, c.key)
		c.do(http.MethodPatch, path).wantError(t, 422, "title")
		c.do(http.MethodPatch, path, withJSON(map[string]any{"title": 5})).wantError(t, 422, "title")
		c.do(http.MethodPatch, path, withJSON(`{"title":`)).wantError(t, 400)
		c.do(http.MethodPatch, "/api/v1/user/conversations/"+uuid.NewString(), withJSON(map[string]any{"title": "x"})).wantError(t, 404)
	})

	var del store.DeleteResult
	c.do(http.MethodDelete, path).want(t, 200).data(t, &del)
	if del.ID != conv.ID {
		t.Errorf("delete id got %q, want %q", del.ID, conv.ID)
	}
	c.do(http.MethodDelete, path).wantError(t, 404)
	c.get(path+"/messages").wantError(t, 404)
	c.do(http.MethodPatch, path, withJSON(map[string]any{"title": "x"})).wantError(t, 404)
	if got := c.conversations(m.ID, ""); len(got) != 0 {
		t.Errorf("conversations after delete got %d, want 0", len(got))
	}
}

func TestConversationMessages(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("chat", fixtureFile(t, "employee-handbook.md"))
	conv := c.createConversation(m.ID, "leave")
	var msgs []store.MessageView
	c.get("/api/v1/user/conversations/"+conv.ID+"/messages").want(t, 200).data(t, &msgs)
	if len(msgs) != 0 {
		t.Fatalf("messages of a new conversation got %d, want 0", len(msgs))
	}

	ts.clock.Advance(time.Minute)
	q := "How many days of paid leave do employees receive per year?"
	res := c.ask(map[string]any{"query": q, "model_id": m.ID, "conversation_id": conv.ID})
	if res.Final == nil || res.Final.ConversationID != conv.ID {
		t.Fatalf("done chunk got %+v, want conversation_id %s", res.Final, conv.ID)
	}

	ts.clock.Advance(time.Minute)
	var jr struct {
		Response       string `json:"response"`
		ConversationID string `json:"conversation_id"`
	}
	c.post("/api/v1/user/inference", map[string]any{"query": "And the hotel limit per night?", "model_id": m.ID, "conversation_id": conv.ID},
		withHeader("Accept", "application/json")).want(t, 200).data(t, &jr)

	c.get("/api/v1/user/conversations/"+conv.ID+"/messages").want(t, 200).data(t, &msgs)
	var roles, contents []string
	for _, msg := range msgs {
		roles = append(roles, msg.Role)
		contents = append(contents, msg.Content)
	}
	if want := []string{"user", "assistant", "user", "assistant"}; !slices.Equal(roles, want) {
		t.Fatalf("roles got %v, want %v", roles, want)
	}
	if contents[0] != q || contents[1] != res.Text || contents[3] != jr.Response {
		t.Errorf("contents got %q, want the questions and answers in order", contents)
	}
	got := c.conversations(m.ID, "")[0]
	if got.TotalMessages != 4 || got.Message != jr.Response || got.MessageTimestamp == nil ||
		!got.MessageTimestamp.Equal(testEpoch.Add(2*time.Minute)) {
		t.Errorf("conversation got total=%d message=%q timestamp=%v, want 4, the last answer, %v",
			got.TotalMessages, got.Message, got.MessageTimestamp, testEpoch.Add(2*time.Minute))
	}

	t.Run("limit and offset page the messages, oldest first (D-06)", func(t *testing.T) {
		path := "/api/v1/user/conversations/" + conv.ID + "/messages"
		var page []store.MessageView
		c.get(path+"?limit=2&offset=1").want(t, 200).data(t, &page)
		if len(page) != 2 || page[0].ID != msgs[1].ID || page[1].ID != msgs[2].ID {
			t.Errorf("limit=2&offset=1 got %+v, want messages 2 and 3", page)
		}
		c.get(path+"?limit=50&offset=0").want(t, 200).data(t, &page)
		if len(page) != 4 {
			t.Errorf("limit=50&offset=0 got %d messages, want 4", len(page))
		}
		c.get(path+"?offset=9").want(t, 200).data(t, &page)
		if len(page) != 0 {
			t.Errorf("offset past the end got %d messages, want 0", len(page))
		}
		c.get(path+"?limit=0").wantError(t, 422, "limit")
	})

	t.Run("refusals", func(t *testing.T) {
		c := ts.client(t, c.key)
		other := c.readyModel("other", fixtureFile(t, "pricing.json"))
		c.post("/api/v1/user/inference", map[string]any{"query": "q", "model_id": other.ID, "conversation_id": conv.ID}).
			wantError(t, 422, "conversation_id")
		c.post("/api/v1/user/inference", map[string]any{"query": "q", "model_id": m.ID, "conversation_id": uuid.NewString()}).
			wantError(t, 404)
		c.post("/api/v1/user/inference", map[string]any{"query": "q", "model_id": m.ID, "conversation_id": "not-a-uuid"}).
			wantError(t, 422, "conversation_id")
		c.get("/api/v1/user/conversations/"+uuid.NewString()+"/messages").wantError(t, 404)
		// A refused question stores nothing.
		if got := c.conversations(m.ID, "")[0].TotalMessages; got != 4 {
			t.Errorf("total_messages got %d, want 4", got)
		}
	})
}
