package client

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"contractkit/bound"
	"contractkit/exchange"
	"contractkit/internal/hostile"
)

// An answer cut by its byte bound keeps its head only (bound.CutKept),
// however it was read: an exchange holds no cut body whole, so a run that
// keeps hundreds of exchanges of a server whose every answer never ends
// (in a check's closures, the explore phase's steps) does not hold a
// bound's worth for each.
func TestCutAnswerKeepsItsHead(t *testing.T) {
	srv := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		hostile.Endless(w, r, "application/json", []byte(`{"status":"success","data":[`), ' ', 64<<20)
	})
	get := Request{Method: http.MethodGet, Path: "/api/v1/user/model"}
	for name, read := range map[string]func(c *Client) *exchange.Exchange{
		"Do": func(c *Client) *exchange.Exchange { return c.Do(context.Background(), get) },
		"Open and FinishRead": func(c *Client) *exchange.Exchange {
			resp, x := c.Open(context.Background(), get)
			if resp != nil {
				c.FinishRead(x, resp)
			}
			return x
		},
		"Open, a read of its own and Finish": func(c *Client) *exchange.Exchange {
			resp, x := c.Open(context.Background(), get)
			if resp != nil {
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				c.Finish(x, body, err)
			}
			return x
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := newTestClient(t, srv.URL)
			x := read(c)
			if !strings.Contains(x.Error, "over 8 MiB") {
				t.Fatalf("Error %q, want the body bound", x.Error)
			}
			if len(x.Raw) != bound.CutKept || cap(x.Raw) != bound.CutKept {
				t.Errorf("the exchange keeps %d bytes (capacity %d) of the cut answer, want its first %d", len(x.Raw), cap(x.Raw), bound.CutKept)
			}
			if !strings.HasSuffix(x.ResponseBody, "(8388608 bytes read, then cut)") {
				t.Errorf("the excerpt ends %q, want the size kept", x.ResponseBody[max(0, len(x.ResponseBody)-40):])
			}
		})
	}
}
