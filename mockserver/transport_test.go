package mockserver

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"contractkit/spec"
)

// A request carried another way is the plain request (D-49): a JSON body
// sent chunked, without Content-Length, and after Expect: 100-continue is
// read whole, within the JSON bound (D-15: one past it is 413 all the
// same); a path id percent-encoded (%34) names the resource it spells.
func TestRequestsCarriedOtherwiseAreRead(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	m := c.readyModel("carried", fixtureFile(t, "employee-handbook.md"))
	body := fmt.Sprintf(`{"model_id":%d,"title":"Chunked and continued"}`, m.ID)
	for _, expect := range []string{"", "100-continue"} {
		r := c.newRequest(http.MethodPost, "/api/v1/user/conversations", withBody("application/json", io.NopCloser(strings.NewReader(body))))
		r.ContentLength = -1
		if expect != "" {
			r.Header.Set("Expect", expect)
		}
		resp, err := c.http.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte("Chunked and continued")) {
			t.Fatalf("Expect %q: %d %s", expect, resp.StatusCode, b)
		}
	}
	escaped := ""
	for _, ch := range []byte(fmt.Sprint(m.ID)) {
		escaped += fmt.Sprintf("%%%02X", ch)
	}
	got := c.get("/api/v1/user/model/"+escaped).want(t, http.StatusOK)
	if !bytes.Contains(got.Body, []byte(`"name":"carried"`)) {
		t.Errorf("model %s read as %s", escaped, got.Body)
	}

	limit := spec.RequestLimits().JSONBodyBytes
	var chunked bytes.Buffer
	cw := newChunked(&chunked)
	_, _ = io.Copy(cw, io.MultiReader(strings.NewReader(`{"title":"`), zeros(2*limit)))
	cw.close()
	head := "POST /api/v1/user/conversations HTTP/1.1\r\nHost: mock\r\nAuthorization: Bearer " + testKey1 +
		"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
	resp, b := rawExchange(t, ts.url, head, &chunked)
	want413(t, resp, b, "exceeds")
}
