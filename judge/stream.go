package judge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// Event is one Server-Sent Event as the WHATWG rules parse it.
type Event struct {
	// Name is the `event:` field ("" for the default "message").
	Name string
	// ID is the `id:` field.
	ID string
	// Data is the `data:` lines joined by "\n".
	Data string
}

// doneMarker is the data of the event that ends an inference stream (seed §4.4).
const doneMarker = "[DONE]"

// ErrStalled is returned when a stream sends nothing for longer than its idle
// limit.
var ErrStalled = errors.New("the stream stalled: no data within the idle limit")

// The inference stream (seed §4.4) as a client reads it: the WHATWG
// event-stream rules, events dispatched one by one, and the Stream they
// make. Its judges are streamjudge.go's.

// ReadEvents parses an event stream and calls each for every event, until
// the reader ends, fails, or each returns false. It follows the WHATWG
// event-stream rules: lines end in CRLF, LF or CR; lines starting with ':'
// are comments; the fields are data, event, id and retry (a single space
// after the colon is dropped); a blank line dispatches the event; an event
// without data is not dispatched.
func ReadEvents(r io.Reader, each func(Event) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	sc.Split(scanSSELines)
	var ev Event
	var data []string
	hasData := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if hasData {
				ev.Data = strings.Join(data, "\n")
				if !each(ev) {
					return nil
				}
			}
			ev, data, hasData = Event{ID: ev.ID}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "data":
			data = append(data, value)
			hasData = true
		case "event":
			ev.Name = value
		case "id":
			if !strings.Contains(value, "\x00") {
				ev.ID = value
			}
		}
		// retry and unknown fields are ignored, as the rules say.
	}
	if err := sc.Err(); err != nil {
		return err
	}
	// At the end of the stream an event not followed by a blank line is
	// discarded by the WHATWG rules; a server that ends `data: [DONE]`
	// without the blank line is still understood here, because the seed
	// speaks of "the line data: [DONE]".
	if hasData {
		ev.Data = strings.Join(data, "\n")
		each(ev)
	}
	return nil
}

// scanSSELines splits on CRLF, LF or a lone CR.
func scanSSELines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		// A CR: followed by LF, the pair is one line end. At the end of the
		// buffered data, wait for more to know.
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if !atEOF {
			return 0, nil, nil
		}
		return i + 1, data[:i], nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// Stream is an inference stream as read by the suite.
type Stream struct {
	// Events are the dispatched events, [DONE] included.
	Events []Event
	// Chunks are the JSON values of the data events before [DONE].
	Chunks []any
	// Done reports that an event with data [DONE] was read.
	Done bool
	// AfterDone counts the events after [DONE].
	AfterDone int
	// NotJSON lists the data of events that are neither JSON nor [DONE].
	NotJSON []string
	// Err is why reading stopped early (a stall, the deadline, a broken
	// connection), nil when the stream ended.
	Err error
	// Raw is what was read, for the report.
	Raw []byte
	// At is when each event of Events was dispatched, counted from the
	// start of reading (the response headers); End is when reading ended.
	At  []time.Duration
	End time.Duration
}

// ReadStream reads an event stream from body until it ends. It gives up when
// nothing arrives for idle, and cancel (which must abort the request body,
// for instance the request context's cancel) is called to unblock the read;
// ctx's deadline bounds the whole stream the same way.
func ReadStream(body io.Reader, idle time.Duration, cancel context.CancelFunc) *Stream {
	s := &Stream{}
	begin := time.Now()
	defer func() { s.End = time.Since(begin) }()
	var raw bytes.Buffer
	var stalled atomic.Bool
	timer := time.AfterFunc(idle, func() {
		stalled.Store(true)
		cancel()
	})
	defer timer.Stop()
	r := &watchedReader{r: io.TeeReader(body, &raw), onData: func() { timer.Reset(idle) }}
	err := ReadEvents(r, func(ev Event) bool {
		s.Add(ev, time.Since(begin))
		return true
	})
	if err != nil {
		if stalled.Load() {
			err = fmt.Errorf("%w (%s); read so far: %d events", ErrStalled, idle, len(s.Events))
		}
		s.Err = err
	}
	s.Raw = raw.Bytes()
	return s
}

// EventKind is what one event of a stream was, as Add classified it.
type EventKind int

// Kinds of event.
const (
	// EventChunk is JSON data before [DONE] (appended to Chunks).
	EventChunk EventKind = iota
	// EventDone is the [DONE] marker.
	EventDone
	// EventAfterDone is any event after [DONE].
	EventAfterDone
	// EventNotJSON is data before [DONE] that is not one JSON value.
	EventNotJSON
)

// Add records one event dispatched at (counted from the start of reading)
// and says what it was. ReadStream adds every event it reads; a reader that
// parses the stream itself (the proxy, with ReadEvents) adds them one by one.
func (s *Stream) Add(ev Event, at time.Duration) EventKind {
	s.Events = append(s.Events, ev)
	s.At = append(s.At, at)
	switch {
	case s.Done:
		s.AfterDone++
		return EventAfterDone
	case strings.TrimSpace(ev.Data) == doneMarker:
		s.Done = true
		return EventDone
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(ev.Data))
	dec.UseNumber()
	if dec.Decode(&v) != nil || dec.More() {
		s.NotJSON = append(s.NotJSON, ev.Data)
		return EventNotJSON
	}
	s.Chunks = append(s.Chunks, v)
	return EventChunk
}

type watchedReader struct {
	r      io.Reader
	onData func()
}

func (w *watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.onData()
	}
	return n, err
}

// Text assembles the answer: as real clients do (and decision D-03 says),
// the join of the `content` of `token` and `delta` chunks. Without strict,
// a stream with neither yields the text of a `message` or `response` chunk
// (its `content` or `response` field).
func (s *Stream) Text(strict bool) string {
	var b strings.Builder
	for _, c := range s.Chunks {
		m, _ := c.(map[string]any)
		t, _ := m["type"].(string)
		if t == "token" || t == "delta" {
			content, _ := m["content"].(string)
			b.WriteString(content)
		}
	}
	if b.Len() > 0 || strict {
		return b.String()
	}
	for _, c := range s.Chunks {
		m, _ := c.(map[string]any)
		t, _ := m["type"].(string)
		if t != "message" && t != "response" {
			continue
		}
		for _, k := range []string{"content", "response"} {
			if text, ok := m[k].(string); ok && text != "" {
				return text
			}
		}
	}
	return ""
}

// DoneChunk returns the `done` chunk, or nil.
func (s *Stream) DoneChunk() map[string]any {
	for i := len(s.Chunks) - 1; i >= 0; i-- {
		if m, ok := s.Chunks[i].(map[string]any); ok && m["type"] == "done" {
			return m
		}
	}
	return nil
}
