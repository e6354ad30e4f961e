package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/store"
)

// inferenceRoutes serves the one inference operation (API reference v1, §4.4).
func (s *Server) inferenceRoutes() map[string]handler {
	return map[string]handler{"runInference": s.runInference}
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
	Type           string         `json:"type"`
	Content        string         `json:"content"`
	Sources        []string       `json:"sources,omitempty"`
	ConversationID string         `json:"conversation_id,omitempty"`
	ThreadID       string         `json:"thread_id,omitempty"`
	TokensUsed     *int           `json:"tokens_used,omitempty"`
	LatencyMS      *int64         `json:"latency_ms,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	Message        string         `json:"message,omitempty"`
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

func (s *Server) runInference(c *call) (any, error) {
	start := time.Now()
	var in inferenceRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	fault := strings.ToLower(c.r.Header.Get("X-Mock-Stream-Fault"))
	switch fault {
	case "", faultStall, faultCut, faultError:
	default:
		return nil, apierr.New(apierr.BadRequest, "X-Mock-Stream-Fault: one of stall, cut, error (got %q)", bound(fault, 20))
	}
	reply, err := c.account.Ask(store.Question{
		Query: in.Query, ModelID: in.ModelID, ConversationID: in.ConversationID, ThreadID: in.ThreadID,
		MaxTokens: in.MaxTokens, Length: in.ResponseLengthPreference, BaseModel: in.BaseModel,
	})
	if err != nil {
		return nil, err
	}
	meta := map[string]any{
		"model_id": reply.ModelID, "model_name": reply.ModelName, "grounded": reply.Grounded,
		"sources": nonNilStrings(reply.Sources), "base_model": in.BaseModel,
	}
	if wantsJSON(c.r.Header.Get("Accept")) {
		return inferenceResult{
			Response: reply.Text, ConversationID: reply.ConversationID, ThreadID: reply.ThreadID,
			TokensUsed: len(reply.Tokens), LatencyMS: time.Since(start).Milliseconds(), Metadata: meta,
		}, nil
	}
	s.stream(c, reply, meta, fault, start)
	return nil, nil
}

// wantsJSON applies D-04: one JSON result only when the client names
// application/json and not text/event-stream.
func wantsJSON(accept string) bool {
	a := strings.ToLower(accept)
	return strings.Contains(a, "application/json") && !strings.Contains(a, "text/event-stream")
}

// stream writes the answer as Server-Sent Events, token by token, paced by
// TokenInterval. It returns as soon as the client leaves or the server shuts
// down: nothing keeps running for a gone client.
func (s *Server) stream(c *call, reply store.Reply, meta map[string]any, fault string, start time.Time) {
	w, ctx := c.w, c.r.Context()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	send := func(v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	shuttingDown := func() { // an open stream ends cleanly on shutdown
		send(chunk{Type: "error", Message: "server is shutting down"})
		_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
		_ = rc.Flush()
	}
	wait := func(d time.Duration) bool { // false: stop streaming
		if d <= 0 {
			return !ctxDone(ctx)
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		case <-s.shutdown:
			shuttingDown()
			return false
		}
	}

	if !send(chunk{Type: "status", Content: "retrieving"}) {
		return
	}
	if len(reply.Sources) > 0 && !send(chunk{Type: "context", Content: fmt.Sprintf("%d passages", len(reply.Passages)), Sources: reply.Sources}) {
		return
	}
	half := len(reply.Tokens) / 2
	for i, tok := range reply.Tokens {
		if !wait(s.cfg.TokenInterval) {
			return
		}
		if i == half && i > 0 {
			switch fault {
			case faultCut:
				panic(http.ErrAbortHandler) // net/http drops the connection
			case faultError:
				send(chunk{Type: "error", Message: "generation failed (injected by X-Mock-Stream-Fault)"})
				_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
				_ = rc.Flush()
				return
			}
		}
		if !send(chunk{Type: "token", Content: tok}) {
			return
		}
		if fault == faultStall {
			select {
			case <-ctx.Done():
			case <-s.shutdown:
				shuttingDown()
			}
			return
		}
	}
	tokens, latency := len(reply.Tokens), time.Since(start).Milliseconds()
	if !send(chunk{Type: "done", ConversationID: reply.ConversationID, ThreadID: reply.ThreadID,
		TokensUsed: &tokens, LatencyMS: &latency, Metadata: meta}) {
		return
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
	_ = rc.Flush()
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ctxDone reports whether ctx has ended.
func ctxDone(ctx context.Context) bool { return ctx.Err() != nil }
