package mockserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"contractkit/mockserver/apierr"
)

// TestTheJournalShowsAnAnswerEncodedAheadAsSent: a model's answer, which
// the store encodes once and the journal keeps without copying, reads in
// the journal byte for byte as the client got it, the first time (encoded
// now) and the second (the store's encoding).
func TestTheJournalShowsAnAnswerEncodedAheadAsSent(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	var list []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(c.get("/api/v1/user/model").want(t, 200).Env.Data, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatal("the fixtures have no model")
	}
	path := "/api/v1/user/model/" + strconv.FormatInt(list[0].ID, 10)
	var sent []string
	for range 2 {
		sent = append(sent, string(c.get(path).want(t, 200).Body))
	}
	entries := journalOf(t, c, "?path="+path)
	if len(entries) != 2 {
		t.Fatalf("got %d entries for %s, want 2", len(entries), path)
	}
	for i, e := range entries {
		resp := e["response"].(map[string]any)
		if resp["body"] != sent[i] || resp["body_size"] != float64(len(sent[i])) || resp["body_truncated"] != false {
			t.Errorf("entry %d: body %q (%v bytes, truncated %v), want %q as sent", i, resp["body"], resp["body_size"], resp["body_truncated"], sent[i])
		}
	}
}

// TestTheJournalWriterKeepsOnlyAWholeEnvelope: the data is kept in place
// of the body only when the body is exactly its envelope; any other body,
// or a body written in more than one piece, is copied whole.
func TestTheJournalWriterKeepsOnlyAWholeEnvelope(t *testing.T) {
	data := []byte(`{"id":1}`)
	envelope := apierr.SuccessPrefix + string(data) + apierr.SuccessSuffix
	for _, tc := range []struct {
		name   string
		writes []string
		kept   bool
	}{
		{"the envelope", []string{envelope}, true},
		{"another body", []string{`{"status":"success","data":{"id":2}}`}, false},
		{"the envelope and more", []string{envelope, "tail"}, false},
		{"in two pieces", []string{envelope[:5], envelope[5:]}, false},
	} {
		jw := &journalWriter{ResponseWriter: httptest.NewRecorder()}
		jw.KeepData(data)
		for _, p := range tc.writes {
			_, _ = jw.Write([]byte(p))
		}
		m := jw.message()
		if want := strings.Join(tc.writes, ""); m.text() != want || m.BodySize != int64(len(want)) {
			t.Errorf("%s: journal body %q (%d bytes), want %q", tc.name, m.text(), m.BodySize, want)
		}
		if (m.data != nil) != tc.kept {
			t.Errorf("%s: data kept %v, want %v", tc.name, m.data != nil, tc.kept)
		}
	}
	jw := &journalWriter{ResponseWriter: httptest.NewRecorder()}
	apierr.WriteData(jw, []byte(`"not raw"`)) // a []byte is not data encoded ahead
	if jw.data != nil || jw.status != http.StatusOK {
		t.Errorf("WriteData of a plain value: data kept %q, status %d", jw.data, jw.status)
	}
}
