package judge

import (
	"encoding/json"
	"fmt"
	"time"
)

// How a client sees a stream: when the first piece of the answer arrives
// and when the stream ends, counted from the request. Every inference
// check of the suite records them (its report entry "stream timing"); the
// incremental-delivery check (D-26) judges them.

// wholeUnder is the stream duration below which a stream delivered whole
// cannot be told from one streamed fast: such a stream is not judged.
const wholeUnder = 50 * time.Millisecond

// spreadAtLeast is the least time between the first and the last answer
// chunk of a stream that is judged incremental.
const spreadAtLeast = 5 * time.Millisecond

// StreamTiming is one inference stream as a client sees it.
type StreamTiming struct {
	// FirstToken is the time from the request to the first answer chunk
	// (token or delta), 0 when none arrived.
	FirstToken time.Duration `json:"time_to_first_token"`
	// LastToken is the time from the request to the last answer chunk.
	LastToken time.Duration `json:"time_to_last_token"`
	// Duration is the time from the request to the end of the stream.
	Duration time.Duration `json:"duration"`
	// Tokens counts the answer chunks.
	Tokens int `json:"tokens"`
}

// String renders the timing for the console and the reports.
func (t StreamTiming) String() string {
	return fmt.Sprintf("first token after %s, last after %s, stream %s, %d answer chunk(s)",
		t.FirstToken.Round(time.Millisecond), t.LastToken.Round(time.Millisecond), t.Duration.Round(time.Millisecond), t.Tokens)
}

// Timing measures s, whose headers arrived after headers.
func (s *Stream) Timing(headers time.Duration) StreamTiming {
	t := StreamTiming{Duration: headers + s.End}
	for i, ev := range s.Events {
		var c struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(ev.Data), &c) != nil || (c.Type != "token" && c.Type != "delta") {
			continue
		}
		at := headers + s.At[i]
		if t.Tokens == 0 {
			t.FirstToken = at
		}
		t.LastToken = at
		t.Tokens++
	}
	return t
}

// Incremental judges D-26: the answer's chunks arrive spread over the
// stream, the first well before the end. A stream shorter than wholeUnder
// is not judged: skip says why.
func (t StreamTiming) Incremental() (fs Findings, skip string) {
	if t.Duration < wholeUnder {
		return nil, fmt.Sprintf("the whole stream took %s (under %s): delivered whole or streamed, a client cannot tell", t.Duration.Round(time.Millisecond), wholeUnder)
	}
	f := Finding{Pointer: RuleStream, Rule: RuleIncremental, Expected: "answer chunks spread over the stream, the first well before the end", Decision: incrementalDecision, Class: Decided}
	switch {
	case t.Tokens < 2:
		f.Got = fmt.Sprintf("%d answer chunk(s) in a %s stream: the answer came in one piece", t.Tokens, t.Duration.Round(time.Millisecond))
	case t.LastToken-t.FirstToken < spreadAtLeast:
		f.Got = fmt.Sprintf("all %d answer chunks within %s of each other, %s after the request, in a %s stream: delivered whole, not streamed",
			t.Tokens, (t.LastToken - t.FirstToken).Round(time.Microsecond), t.FirstToken.Round(time.Millisecond), t.Duration.Round(time.Millisecond))
	default:
		return nil, ""
	}
	return Findings{f}, ""
}

// incrementalDecision decides that an answer streams as it is produced.
const incrementalDecision = "D-26"
