package mockserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/store"

	"contractkit/internal/textcut"
	"contractkit/spec"
)

// inferenceRoutes serves the one inference operation (API reference v1, §4.4).
func (s *Server) inferenceRoutes() map[string]handler {
	return map[string]handler{spec.OpRunInference: s.runInference}
}

// inferenceRequest is the part of the seed's 19 fields the mock acts on; the
// others are validated by the contract and accepted.
type inferenceRequest struct {
	Query                    string `json:"query"`
	ModelID                  int64  `json:"model_id"`
	ConversationID           string `json:"conversation_id"`
	ThreadID                 string `json:"thread_id"`
	MaxTokens                int    `json:"max_tokens"`
	BaseModel                bool   `json:"base_model"`
	ResponseLengthPreference string `json:"response_length_preference"`
}

// chunk is one event of the stream (D-03).
type chunk struct {
	Type           string          `json:"type"`
	Content        string          `json:"content"`
	Sources        []string        `json:"sources,omitempty"`
	ConversationID string          `json:"conversation_id,omitempty"`
	ThreadID       string          `json:"thread_id,omitempty"`
	TokensUsed     *int            `json:"tokens_used,omitempty"`
	LatencyMS      *int64          `json:"latency_ms,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"` // rendered once (answer)
	Message        string          `json:"message,omitempty"`
}

// inferenceResult is the whole answer in one JSON result (D-04).
type inferenceResult struct {
	Response       string         `json:"response"`
	ConversationID string         `json:"conversation_id,omitempty"`
	ThreadID       string         `json:"thread_id"`
	TokensUsed     int            `json:"tokens_used"`
	LatencyMS      int64          `json:"latency_ms"`
	Metadata       map[string]any `json:"metadata"`
}

// Stream faults a client can ask for with X-Mock-Stream-Fault.
const (
	faultStall = "stall" // stop sending after the first token, keep the connection open
	faultCut   = "cut"   // drop the connection halfway, without [DONE]
	faultError = "error" // send an error chunk halfway, then [DONE]
)

// runInference answers in one JSON result or as a stream. It stays a thin
// frame on purpose: every open stream's goroutine parks below it for the
// stream's whole life, and a goroutine's stack only shrinks (at GC) when
// less than a quarter of it is in use, so the deep work of decoding and
// answering runs in answer, whose frames are gone before the paced loop.
func (s *Server) runInference(c *call) (any, error) {
	result, st, err := s.answer(c)
	if st == nil {
		return result, err
	}
	s.stream(c.w, c.r, st)
	return nil, nil
}

// answer decodes the request and composes the reply: the JSON result, or
// (with a nil result) what the stream needs, and no more, so that an open
// stream keeps neither the request body, nor the passages, nor the token
// strings alive.
func (s *Server) answer(c *call) (any, *answerStream, error) {
	start := time.Now()
	var in inferenceRequest
	err := c.decode(&in)
	c.body = nil // decoded: the bytes need not live as long as the stream
	if err != nil {
		return nil, nil, err
	}
	fault := c.fault
	if fault == "" {
		fault = strings.ToLower(c.r.Header.Get("X-Mock-Stream-Fault"))
	}
	switch fault {
	case "", faultStall, faultCut, faultError:
	default:
		return nil, nil, apierr.New(apierr.BadRequest, "X-Mock-Stream-Fault: one of stall, cut, error (got %q)", textcut.Shorten(fault, 20))
	}
	asJSON := wantsJSON(c.r.Header.Get("Accept"))
	reply, err := c.account.Ask(store.Question{
		Query: in.Query, ModelID: in.ModelID, ConversationID: in.ConversationID, ThreadID: in.ThreadID,
		MaxTokens: in.MaxTokens, Length: in.ResponseLengthPreference, BaseModel: in.BaseModel,
		Streamed: !asJSON,
	})
	if err != nil {
		return nil, nil, err
	}
	meta := map[string]any{
		"model_id": reply.ModelID, "model_name": reply.ModelName, "grounded": reply.Grounded,
		"sources": nonNilStrings(reply.Sources), "base_model": in.BaseModel,
	}
	if asJSON {
		return inferenceResult{
			Response: reply.Text, ConversationID: reply.ConversationID, ThreadID: reply.ThreadID,
			TokensUsed: len(reply.Tokens), LatencyMS: time.Since(start).Milliseconds(), Metadata: meta,
		}, nil, nil
	}
	// The metadata is rendered now, as the done chunk would render it (a
	// map's keys sorted), rather than kept as a map for the stream's life.
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return nil, nil, err
	}
	st := &answerStream{
		text: reply.Text, ends: make([]uint32, len(reply.Tokens)), sources: reply.Sources, passages: len(reply.Passages),
		conversationID: reply.ConversationID, threadID: reply.ThreadID, meta: metaJSON, fault: fault, start: start, pace: c.pace,
		account: c.account, answerID: reply.AnswerID,
	}
	end := 0
	for i, tok := range reply.Tokens {
		end += len(tok)
		st.ends[i] = uint32(end)
	}
	if end != len(st.text) { // retrieval.Answer promises Text is the tokens joined; never slice past it
		st.text = strings.Join(reply.Tokens, "")
	}
	return nil, st, nil
}

// wantsJSON applies D-04: one JSON result only when the client names
// application/json and not text/event-stream.
func wantsJSON(accept string) bool {
	a := strings.ToLower(accept)
	return strings.Contains(a, "application/json") && !strings.Contains(a, "text/event-stream")
}

// answerStream is what an open stream holds: the answer's text with its
// token boundaries (4 bytes a token instead of a string header and, for
// some tokens, a string of their own), the context chunk's sources until
// it is sent, and the done chunk's fields.
type answerStream struct {
	text                     string
	ends                     []uint32 // token i is text[ends[i-1]:ends[i]]
	sources                  []string
	passages                 int
	conversationID, threadID string
	meta                     json.RawMessage
	fault                    string
	pace                     *streamPace // an override's token pace; nil: --token-interval
	start                    time.Time
	// account and answerID name the conversation message that waits for
	// the text this stream sends (D-30); answerID is "" without one.
	account  *store.Account
	answerID string
}

// settle stores in the conversation the answer text of the first sent
// tokens, once, and waits until that is on disk (with --state): called
// where the stream ends, before the client can see the end (done, an error
// chunk, a cut, a stall), and deferred for every other way out (the client
// left, shutdown).
func (s *Server) settle(st *answerStream, sent int) error {
	if st.answerID == "" {
		return nil
	}
	text := ""
	if sent > 0 {
		text = st.text[:st.ends[sent-1]]
	}
	st.account.SettleAnswer(st.conversationID, st.answerID, text)
	st.answerID = ""
	return s.durable()
}

func (st *answerStream) token(i int) string {
	from := uint32(0)
	if i > 0 {
		from = st.ends[i-1]
	}
	return st.text[from:st.ends[i]]
}

// stream writes the answer as Server-Sent Events, token by token, paced by
// TokenInterval or the pace an override set. It returns as soon as the client leaves or the server shuts
// down: nothing keeps running for a gone client. It parks in its own frame
// (one timer, reset per token), never in a deeper call, to keep the parked
// stack small.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, st *answerStream) {
	ctx := r.Context()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	if st.fault != "" {
		// Said in the answer too, so a client (the console, the journal)
		// can name a stream that breaks on purpose.
		h.Set("X-Mock-Stream-Fault", st.fault)
	}
	// A paced stream (or one that stalls) takes its connection over once
	// the headers are out (streamconn.go).
	var sc *streamConn
	rec := (*statusRecorder)(nil)
	if s.cfg.TokenInterval > 0 || st.pace != nil || st.fault == faultStall {
		rec = s.takeable(w, r)
	}
	if rec != nil {
		h.Set("Connection", "close")
	}
	w.WriteHeader(http.StatusOK)
	if rec != nil {
		if sc = s.taken.takeOver(rec); sc != nil {
			defer s.taken.end(sc) // after settle, as net/http's last chunk comes after the handler
		}
	}
	ev := events{w: w, rc: http.NewResponseController(w)}
	sent := 0 // token chunks written
	defer func() { _ = s.settle(st, sent) }()

	if !ev.send(&chunk{Type: "status", Content: "retrieving"}) {
		return
	}
	if len(st.sources) > 0 && !ev.send(&chunk{Type: "context", Content: strconv.Itoa(st.passages) + " passages", Sources: st.sources}) {
		return
	}
	st.sources = nil
	// The pause before each token: --token-interval, or an override's pace.
	var timer waitTimer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	n, half := len(st.ends), len(st.ends)/2
	for i := range n {
		d := s.cfg.TokenInterval
		if st.pace != nil {
			d = st.pace.next()
		}
		if d <= 0 {
			if ctxDone(ctx) {
				return
			}
		} else if sc != nil {
			switch s.taken.wait(sc, d) {
			case waitGone:
				return
			case waitShutdown:
				ev.shuttingDown()
				return
			}
		} else {
			if timer == nil {
				timer = s.timers.newTimer(d)
			} else {
				timer.Reset(d)
			}
			select {
			case <-timer.C():
			case <-ctx.Done():
				return
			case <-s.shutdown:
				ev.shuttingDown()
				return
			}
		}
		if i == half && i > 0 {
			switch st.fault {
			case faultCut:
				_ = s.settle(st, sent)
				markStreamFault(w, faultCut)
				if sc != nil {
					s.taken.cut(sc)
				}
				panic(http.ErrAbortHandler) // net/http drops the connection
			case faultError:
				_ = s.settle(st, sent)
				markStreamFault(w, faultError)
				ev.send(&chunk{Type: "error", Message: "generation failed (injected by X-Mock-Stream-Fault)"})
				ev.done()
				return
			}
		}
		if !ev.send(&chunk{Type: "token", Content: st.token(i)}) {
			return
		}
		sent++
		if st.fault == faultStall {
			_ = s.settle(st, sent) // what the client has while the stream hangs
			markStreamFault(w, faultStall)
			if sc != nil {
				if s.taken.wait(sc, 0) == waitShutdown {
					ev.shuttingDown()
				}
				return
			}
			select {
			case <-ctx.Done():
			case <-s.shutdown:
				ev.shuttingDown()
			}
			return
		}
	}
	if err := s.settle(st, sent); err != nil {
		// The answer is not kept: the stream does not end as if it were.
		ev.send(&chunk{Type: "error", Message: "the answer could not be saved to the state file"})
		ev.done()
		return
	}
	tokens, latency := n, time.Since(st.start).Milliseconds()
	if !ev.send(&chunk{Type: "done", ConversationID: st.conversationID, ThreadID: st.threadID,
		TokensUsed: &tokens, LatencyMS: &latency, Metadata: st.meta}) {
		return
	}
	ev.done()
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ctxDone reports whether ctx has ended.
func ctxDone(ctx context.Context) bool { return ctx.Err() != nil }
