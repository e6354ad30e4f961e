package judge

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/internal/textcut"
)

// The judges of an inference stream, event by event as it passes: the
// declared rules of seed §4.4 (every event's data is JSON, the stream ends
// with `data: [DONE]`, the joined answer is not empty) and the chunk shape
// of decision D-03. The proxy feeds a StreamJudge as the events pass; the
// suite, which reads a stream whole, replays it through one (Answer), so a
// stream gets the same findings whoever reads it.

// chunkDecision is the decision that shapes the chunks (InferenceChunk).
const chunkDecision = "D-03"

// StreamJudge judges one event stream. Not safe for concurrent use: one
// reader feeds it.
type StreamJudge struct {
	types     []string
	result    map[string]*openapi3.Schema
	op        string
	s         Stream
	begin     time.Time
	afterDone bool
}

// newStreamJudge starts judging a stream of operation op whose headers
// just passed.
func (j *Judge) newStreamJudge(op string) *StreamJudge {
	return &StreamJudge{types: j.chunkTypes, result: j.resultFields, op: op, begin: time.Now()}
}

// Stream is the stream read so far.
func (j *StreamJudge) Stream() *Stream { return &j.s }

// Event judges one event and returns what it breaks: of the seed's rules
// (Declared) or of decision D-03 (Decided). The chunk (its JSON data) is
// returned for observers, nil when the event carries none.
func (j *StreamJudge) Event(ev Event) (fs Findings, chunk any) {
	kind := j.s.Add(ev, time.Since(j.begin))
	at := "stream:" + strconv.Itoa(len(j.s.Events))
	switch kind {
	case EventNotJSON:
		fs = append(fs, j.declared(at, "JSON data (or [DONE])", strconv.Quote(textcut.Shorten(ev.Data, 120))))
	case EventAfterDone:
		if !j.afterDone {
			j.afterDone = true
			fs = append(fs, j.declared(at, "nothing after `data: [DONE]`", "an event"))
		}
	case EventChunk:
		chunk = j.s.Chunks[len(j.s.Chunks)-1]
		if f, ok := j.chunk(at, chunk); ok {
			fs = append(fs, f)
		}
	}
	return fs, chunk
}

// End judges the end of the stream: err is why it ended early (the
// server broke it off or it stalled), nil when it ended. What each event
// broke was returned by Event and is not repeated.
func (j *StreamJudge) End(err error) Findings {
	j.s.Err, j.s.End = err, time.Since(j.begin)
	var fs Findings
	if err != nil {
		fs = append(fs, j.declared("stream:end", "the stream to its end", "reading stopped: "+err.Error()))
	}
	if !j.s.Done {
		fs = append(fs, j.declared("stream:end", "`data: [DONE]` last", "the stream ended without it"))
	}
	if err != nil {
		return fs
	}
	if j.s.Text(false) == "" {
		fs = append(fs, j.declared("stream:end", "the answer's text (token or delta chunks, or a message or response chunk)", "none"))
	}
	// The type of the last object chunk: a chunk that is not an object is
	// its own finding (Event), not the end's.
	lastType := ""
	for i := len(j.s.Chunks) - 1; i >= 0; i-- {
		if m, ok := j.s.Chunks[i].(map[string]any); ok {
			lastType, _ = m["type"].(string)
			break
		}
	}
	if lastType != "done" {
		fs = append(fs, j.decided("stream:end", `a "done" chunk last before [DONE]`, strconv.Quote(lastType)))
	}
	if j.s.Text(true) == "" {
		fs = append(fs, j.decided("stream:end", "text in `token` or `delta` chunks", "none"))
	}
	return append(fs, j.doneFields()...)
}

// doneFields judges the done chunk's fields that the inference result
// has (§2.11: the result is assembled from the stream). Where the done
// chunk carries them is D-03's; once it carries one, the result a client
// assembles carries its value, so its type is the declared one: a
// latency_ms of 103.48 is a fraction in every client's result. A null is
// read as the field not carried.
func (j *StreamJudge) doneFields() Findings {
	done := j.s.DoneChunk()
	var fs Findings
	for _, name := range slices.Sorted(maps.Keys(done)) {
		sch, v := j.result[name], done[name]
		if sch == nil || v == nil || name == "response" {
			continue
		}
		if sch.VisitJSON(Canonical(v)) == nil {
			continue
		}
		f := j.declared("stream:done/"+name, "the inference result's "+name+": "+schemaType(sch),
			jsonKind(v)+" "+textcut.Shorten(fmt.Sprint(v), 60))
		f.Clause = "2.11"
		fs = append(fs, f)
	}
	return fs
}

// schemaType names a schema's type ("integer"), "a value" when it has none.
func schemaType(s *openapi3.Schema) string {
	if s.Type == nil || len(*s.Type) == 0 {
		return "a value"
	}
	return strings.Join(*s.Type, " or ")
}

// chunk is what one chunk breaks of decision D-03 on its own: an object
// with a `type` among the contract's (InferenceChunk), string `content` in
// token and delta chunks, not an error chunk.
func (j *StreamJudge) chunk(at string, c any) (Finding, bool) {
	types := j.types
	m, ok := c.(map[string]any)
	if !ok {
		return j.decided(at, "a JSON object", "a JSON "+jsonKind(c)), true
	}
	t, ok := m["type"].(string)
	switch {
	case !ok:
		return j.decided(at, "a string `type`", "none"), true
	case !slices.Contains(types, t):
		return j.decided(at, "a type among "+strings.Join(types, ", "), strconv.Quote(t)), true
	case t == "token" || t == "delta":
		if _, ok := m["content"].(string); !ok {
			return j.decided(at, "string `content` in a "+t+" chunk", "none"), true
		}
	case t == "error":
		return j.decided(at, "no error chunk", fmt.Sprintf("an error chunk: %v", m["message"])), true
	}
	return Finding{}, false
}

func (j *StreamJudge) declared(at, expected, got string) Finding {
	return Finding{Operation: j.op, Pointer: at, Rule: RuleStream, Expected: expected, Got: got, Clause: "4.4"}
}

func (j *StreamJudge) decided(at, expected, got string) Finding {
	return Finding{Operation: j.op, Pointer: at, Rule: RuleChunk, Expected: expected, Got: got, Decision: chunkDecision, Class: Decided}
}
