package mutation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"contractkit/spec"
)

// fixtureReadyModel is the first key's ready fixture model (the default
// set's first model, after its three datasets).
const fixtureReadyModel = "4"

// The contract's path the hostile tests call besides the modelled mutants' (modelled.go).
var pathInference = func() string {
	op, _ := spec.Strict().Operation("runInference")
	return op.Path
}()

func TestHostileTable(t *testing.T) {
	list := Hostile()
	if len(list) != 9 {
		t.Errorf("%d hostile servers, want the 9 of the issues (update this test with the table)", len(list))
	}
	for _, m := range list {
		if !m.Hostile || m.Valid || m.Decided != "" || m.Explore || m.Class() != "hostile" {
			t.Errorf("%s: a hostile server is that and nothing else", m.Name)
		}
		if !strings.HasPrefix(m.Name, "hostile-") || m.Area == "" || m.Breaks == "" || (m.Serve == nil && m.Stream == nil) {
			t.Errorf("%s: named hostile-…, with an area, what it does, and a Serve or a Stream", m.Name)
		}
		if got, err := Lookup(m.Name); err != nil || got.Name != m.Name {
			t.Errorf("--break %s: Lookup got %q, %v", m.Name, got.Name, err)
		}
	}
	// The runner's default set (List) leaves them out: its expectation
	// for them is not a pass or a fail.
	for _, m := range List() {
		if m.Hostile || strings.HasPrefix(m.Name, "hostile-") {
			t.Errorf("List() has the hostile server %s", m.Name)
		}
	}
	if got, want := len(Catalog()), len(List())+len(list); got != want {
		t.Errorf("Catalog() has %d entries, want List's and Hostile's (%d)", got, want)
	}
}

// hostileGet sends a GET through the hostile server with a client whose
// headers are bounded, and returns the answer with its body unread.
func (c *mockClient) hostileGet(ctx context.Context, path string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url+path, nil)
	req.Header.Set("Authorization", c.key)
	tr := &http.Transport{MaxResponseHeaderBytes: 64 << 10}
	c.t.Cleanup(tr.CloseIdleConnections)
	return (&http.Client{Transport: tr}).Do(req)
}

// otherwiseTheMock: every other operation the hostile server does not
// touch is the mock's.
func (c *mockClient) otherwiseTheMock(path string) {
	c.t.Helper()
	if v := c.data(http.MethodGet, path, nil); v == nil {
		c.t.Errorf("GET %s: no data", path)
	}
}

func TestHostileModelListNeverEnds(t *testing.T) {
	c := wrapped(t, "hostile-model-list-endless")
	c.key = bearer(testKeyA)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.hostileGet(ctx, pathModels())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	head := make([]byte, 28)
	io.ReadFull(resp.Body, head)
	rest, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if string(head) != `{"status":"success","data":[` || err != nil || len(rest) != 4<<20 || strings.Trim(string(rest), " ") != "" {
		t.Errorf("head %q, then %d bytes (%v), want 4 MiB of spaces and more", head, len(rest), err)
	}
	c.otherwiseTheMock(pathModels() + "/" + fixtureReadyModel) // not readyModel: it lists the models
}

// Every JSON answer never ends: the mock's answer, its closing byte held
// back, then whitespace; the status is the mock's (a 404 too).
func TestHostileEveryJSONAnswerNeverEnds(t *testing.T) {
	c := wrapped(t, "hostile-json-endless")
	c.key = bearer(testKeyA)
	for path, status := range map[string]int{pathModels(): http.StatusOK, pathDatasets() + "/999999": http.StatusNotFound} {
		ctx, cancel := context.WithCancel(context.Background())
		resp, err := c.hostileGet(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 10)
		io.ReadFull(resp.Body, head)
		rest, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		tail := strings.TrimRight(string(rest), " ")
		if resp.StatusCode != status || !strings.HasPrefix(string(head), `{"status":`) || err != nil || len(rest) != 4<<20 || len(tail) > 64<<10 || strings.HasSuffix(tail, "}") {
			t.Errorf("GET %s: %d, head %q, then %d bytes ending %q (%v); want %d, the mock's answer less its last byte, then spaces without end",
				path, resp.StatusCode, head, len(rest), tail[max(0, len(tail)-20):], err, status)
		}
		resp.Body.Close()
		cancel()
	}
}

func TestHostileModelDrips(t *testing.T) {
	c := wrapped(t, "hostile-model-drip")
	c.key = bearer(testKeyA)
	c.otherwiseTheMock(pathModels())
	model := c.readyModel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.hostileGet(ctx, pathModels()+"/"+model)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength < 100 {
		t.Fatalf("the mock's answer: %d, %d bytes announced", resp.StatusCode, resp.ContentLength)
	}
	one := make([]byte, 1)
	start := time.Now()
	if _, err := io.ReadFull(resp.Body, one); err != nil || one[0] != '{' {
		t.Fatalf("first byte %q, %v", one, err)
	}
	first := time.Since(start)
	if _, err := io.ReadFull(resp.Body, one); err != nil {
		t.Fatal(err)
	}
	if gap := time.Since(start) - first; gap < dripStep-200*time.Millisecond {
		t.Errorf("the second byte came %v after the first, want about %v", gap, dripStep)
	}
}

// streamInference posts an inference through the hostile server and
// returns its answer, body unread.
func (c *mockClient) streamInference(ctx context.Context) *http.Response {
	c.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": "What is the warranty period?", "model_id": json.Number(c.readyModel())})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url+pathInference, bytes.NewReader(body))
	req.Header.Set("Authorization", c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		c.t.Fatalf("inference: %v, %v", resp, err)
	}
	return resp
}

func TestHostileStreamNeverSendsDone(t *testing.T) {
	c := wrapped(t, "hostile-stream-never-done")
	c.key = bearer(testKeyA)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := c.streamInference(ctx)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	afterDoneChunk := -1
	for sc.Scan() && afterDoneChunk < 5 {
		line := sc.Text()
		switch {
		case strings.Contains(line, "[DONE]"):
			t.Fatal("the stream sent [DONE]")
		case strings.Contains(line, `"type":"done"`):
			afterDoneChunk = 0
		case afterDoneChunk >= 0 && strings.HasPrefix(line, "data: "):
			afterDoneChunk++
		}
	}
	if afterDoneChunk < 5 {
		t.Errorf("%d events after the done chunk, want the stream to go on (%v)", afterDoneChunk, sc.Err())
	}
}

func TestHostileStreamGoesSilent(t *testing.T) {
	c := wrapped(t, "hostile-stream-silent")
	c.key = bearer(testKeyA)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := c.streamInference(ctx)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	first, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "data: {") {
		t.Fatalf("first line %q, %v", first, err)
	}
	r.ReadString('\n') // the blank line that ends the first event
	more := make(chan string, 1)
	go func() {
		line, _ := r.ReadString('\n')
		more <- line
	}()
	select {
	case line := <-more:
		t.Fatalf("a silent stream sent %q", line)
	case <-time.After(500 * time.Millisecond): // the silence is what is tested: a bounded wait for nothing
	}
	cancel()
}

func TestHostileAnswersOnOneOperation(t *testing.T) {
	for _, tc := range []struct {
		name, path, other string
		check             func(t *testing.T, resp *http.Response, err error)
	}{
		{"hostile-dataset-list-garbage", pathDatasets(), pathModels(), func(t *testing.T, resp *http.Response, err error) {
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			if resp.Header.Get("Content-Type") != "application/json" || len(b) != 64<<10 || json.Valid(b) {
				t.Errorf("garbage: %s, %d bytes, JSON %v", resp.Header.Get("Content-Type"), len(b), json.Valid(b))
			}
		}},
		{"hostile-evaluation-list-reset", pathEvaluations(), pathModels(), func(t *testing.T, _ *http.Response, err error) {
			if !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("got %v, want a connection reset", err)
			}
		}},
		{"hostile-conversation-list-nested", pathConversations() + "?model_id=4", pathEvaluations(), func(t *testing.T, resp *http.Response, err error) {
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			var v any
			if !bytes.HasPrefix(b, []byte(`{"status":"success","data":[[[[`)) || len(b) < 400_000 || json.Unmarshal(b, &v) == nil {
				t.Errorf("nested: %d bytes %.40q", len(b), b)
			}
		}},
		{"hostile-dataset-headers-endless", pathDatasets() + "/1", pathDatasets(), func(t *testing.T, _ *http.Response, err error) {
			if err == nil || !strings.Contains(err.Error(), "headers exceeded") {
				t.Errorf("got %v, want the client's header bound", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := wrapped(t, tc.name)
			c.key = bearer(testKeyA)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			resp, err := c.hostileGet(ctx, tc.path)
			if resp != nil {
				defer resp.Body.Close()
			}
			tc.check(t, resp, err)
			c.otherwiseTheMock(tc.other)
		})
	}
}
