package mockserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"contractkit/mockserver/store"
)

// D-29: request bodies are closed in the contract, and the mock accepts a
// body with fields the contract does not name, as if they were absent, but
// never silently: X-Mock-Unknown-Fields and the journal name them.

func TestUnknownFieldsAreAcceptedAndNamed(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	model := c.models()[0]

	r := c.post("/api/v1/user/conversations", map[string]any{"model_id": model.ID, "titel": "Leave questions"}).want(t, 200)
	var conv store.ConversationView
	r.data(t, &conv)
	if conv.Title != "" {
		t.Errorf("title got %q, want \"\": the misspelt field is not read as the title", conv.Title)
	}
	if got := r.Header.Get("X-Mock-Unknown-Fields"); got != "titel" {
		t.Errorf("X-Mock-Unknown-Fields got %q, want titel", got)
	}
	entries := journalOf(t, c, "?path=/api/v1/user/conversations")
	last := entries[len(entries)-1]
	if got := fmt.Sprint(last["unknown_fields"]); got != "[titel]" {
		t.Errorf("journal unknown_fields got %s, want [titel]", got)
	}
	if !strings.Contains(last["request"].(map[string]any)["body"].(string), "titel") {
		t.Error("the journal's request body is not the body sent")
	}

	// A body the contract names every field of: no header, no mark.
	r = c.post("/api/v1/user/conversations", map[string]any{"model_id": model.ID, "title": "Fine"}).want(t, 200)
	if got, ok := r.Header["X-Mock-Unknown-Fields"]; ok {
		t.Errorf("X-Mock-Unknown-Fields %q on a body without unknown fields", got)
	}
	entries = journalOf(t, c, "?path=/api/v1/user/conversations")
	if _, ok := entries[len(entries)-1]["unknown_fields"]; ok {
		t.Error("journal unknown_fields on a body without unknown fields")
	}
}

func TestUnknownFieldsInsideClosedObjectsAreNamedByPath(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("Paths", fixtureFile(t, "release-notes.txt"))
	r := c.post("/api/v1/user/inference", map[string]any{
		"query": "What changed?", "model_id": m.ID, "temprature": 0.5,
		"image_parameters": map[string]any{"width": 512, "widht": 512},
		"persona":          map[string]any{"name": "Ada", "mood": "calm"}, // an open map (D-18)
	}, withHeader("Accept", "application/json")).want(t, 200)
	if got := r.Header.Get("X-Mock-Unknown-Fields"); got != "image_parameters.widht, temprature" {
		t.Errorf("X-Mock-Unknown-Fields got %q, want image_parameters.widht, temprature", got)
	}

	ev := c.createEvaluation(m.ID, "Paths check")
	r = c.post(fmt.Sprintf("/api/v1/evaluations/%d/run-ragas", ev.ID), map[string]any{
		"samples": []any{
			map[string]any{"question": "What changed?", "answer": "Things."},
			map[string]any{"question": "When?", "anwser": "Today."},
		},
	}).want(t, 200)
	if got := r.Header.Get("X-Mock-Unknown-Fields"); got != "samples[1].anwser" {
		t.Errorf("X-Mock-Unknown-Fields got %q, want samples[1].anwser", got)
	}
}

func TestUnknownFieldsAfterTheAlternativeSpellings(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	d := c.datasets()[0]
	// name is D-21's spelling of model_name: rewritten, not unknown.
	r := c.post("/api/v1/user/model", map[string]any{"name": "Spelt", "dataset_id": d.ID}).want(t, 200)
	if got, ok := r.Header["X-Mock-Unknown-Fields"]; ok {
		t.Errorf("X-Mock-Unknown-Fields %q for D-21's alternative spelling", got)
	}
	// Both given: model_name wins, and name is left over, unread.
	r = c.post("/api/v1/user/model", map[string]any{"model_name": "Declared", "name": "Other", "dataset_id": fmt.Sprint(d.ID)}).want(t, 200)
	if got := r.Header.Get("X-Mock-Unknown-Fields"); got != "name" {
		t.Errorf("X-Mock-Unknown-Fields got %q, want name", got)
	}
}

func TestUnknownFieldsOfAnInvalidBodyAreNamedToo(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	r := c.post("/api/v1/user/conversations", map[string]any{"model_id": "not a number", "titel": "x"}).wantError(t, 422, "model_id")
	if strings.Contains(r.Env.Message, "titel") {
		t.Errorf("the 422 message %q names the unknown field: it is not the error", r.Env.Message)
	}
	if got := r.Header.Get("X-Mock-Unknown-Fields"); got != "titel" {
		t.Errorf("X-Mock-Unknown-Fields got %q, want titel", got)
	}
}

func TestUnknownMultipartFieldsAreNamed(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	ct, body := multipartBody(t, [][2]string{{"dataset_name", "Forms"}, {"descripton", "typo"}, {"tags", "a"}},
		fixtureFile(t, "release-notes.txt"), filePart{field: "attachment", name: "x.txt", data: []byte("extra part\n")})
	r := c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body)).want(t, 200)
	if got := r.Header.Get("X-Mock-Unknown-Fields"); got != "attachment, descripton" {
		t.Errorf("X-Mock-Unknown-Fields got %q, want attachment, descripton", got)
	}
	entries := journalOf(t, c, "?method=POST")
	if got := fmt.Sprint(entries[len(entries)-1]["unknown_fields"]); got != "[attachment descripton]" {
		t.Errorf("journal unknown_fields got %s", got)
	}
}

func TestUnknownFieldNamesAreBoundedAndSafeInAHeader(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	body := map[string]any{"model_id": c.models()[0].ID, "bad\r\nX-Injected: 1": 1, "aïe": 2}
	for i := range 30 {
		body[fmt.Sprintf("extra%02d", i)] = i
	}
	r := c.post("/api/v1/user/conversations", body).want(t, 200)
	if r.Header.Get("X-Injected") != "" {
		t.Fatal("a field name injected a header")
	}
	got := r.Header.Get("X-Mock-Unknown-Fields")
	for _, ch := range got {
		if ch < 0x20 || ch > 0x7e {
			t.Fatalf("X-Mock-Unknown-Fields %q holds a character outside visible ASCII", got)
		}
	}
	names := strings.Split(got, ", ")
	if len(names) != maxUnknownNames+1 || names[len(names)-1] != fmt.Sprintf("and %d more", 32-maxUnknownNames) {
		t.Errorf("X-Mock-Unknown-Fields lists %d items (%q), want %d names and a count of the rest", len(names), got, maxUnknownNames)
	}
	if !slices.Contains(names, `"bad\r\nX-Injected: 1"`) || !slices.Contains(names, `"a\u00efe"`) {
		t.Errorf("X-Mock-Unknown-Fields %q: a name outside plain ASCII is not quoted", got)
	}
}
