package apierr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWriteMapsEveryCode(t *testing.T) {
	for code, want := range statuses {
		t.Run(string(code), func(t *testing.T) {
			rec := httptest.NewRecorder()
			Write(rec, nil, New(code, "boom %d", 1))
			if rec.Code != want {
				t.Fatalf("status: got %d, want %d", rec.Code, want)
			}
			var env Envelope
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
				t.Fatal(err)
			}
			if env.Status != "error" || env.Message != "boom 1" {
				t.Fatalf("envelope: got %+v", env)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/json" {
				t.Fatalf("content type: got %q", got)
			}
			if back, ok := CodeOf(want); !ok || back != code {
				t.Fatalf("CodeOf(%d): got %q %v", want, back, ok)
			}
		})
	}
}

func TestWriteHidesInternalText(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	rec := httptest.NewRecorder()
	Write(rec, log, errors.New("database password is hunter2"))
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status: got %d", rec.Code)
	}
	if strings.Contains(rec.Body.String(), "hunter2") {
		t.Fatalf("internal text leaked: %s", rec.Body)
	}
	if !strings.Contains(logs.String(), "hunter2") {
		t.Fatalf("internal text not logged: %s", logs.String())
	}
}

func TestWriteUnwraps(t *testing.T) {
	rec := httptest.NewRecorder()
	Write(rec, nil, fmt.Errorf("context: %w", New(NotFound, "model 9 not found")))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "model 9 not found") {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
}

func TestWriteData(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteData(rec, map[string]int{"id": 1})
	if rec.Code != 200 || rec.Body.String() != `{"status":"success","data":{"id":1}}` {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
}

// An answer encoded ahead with Marshal and written as a json.RawMessage is
// byte for byte the answer WriteData writes from the value itself.
func TestMarshalAheadWritesTheSameBytes(t *testing.T) {
	v := map[string]any{"name": "Support <bot> & co", "n": 1.5, "list": []any{nil, "x"}, "when": "2026-03-01T08:00:00Z"}
	direct := httptest.NewRecorder()
	WriteData(direct, v)
	raw, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	ahead := httptest.NewRecorder()
	WriteData(ahead, json.RawMessage(raw))
	if direct.Body.String() != ahead.Body.String() {
		t.Fatalf("encoded ahead:\n%s\ndirect:\n%s", ahead.Body, direct.Body)
	}
	if !strings.Contains(direct.Body.String(), "<bot> & co") {
		t.Fatalf("HTML characters were escaped: %s", direct.Body)
	}
}

func TestWithStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   Code
		want   int
	}{
		{503, Forced, 503},
		{404, NotFound, 404},
		{418, Forced, 418},
		{500, Internal, 500},
		{302, Forced, 500}, // not an error status: never sent as one
	} {
		e := WithStatus(tc.status, "down")
		rec := httptest.NewRecorder()
		Write(rec, nil, e)
		if e.Code != tc.code || rec.Code != tc.want {
			t.Errorf("WithStatus(%d): code %q, sent %d; want %q, %d", tc.status, e.Code, rec.Code, tc.code, tc.want)
		}
		var env Envelope
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Status != "error" || env.Message != "down" {
			t.Errorf("WithStatus(%d): envelope %s", tc.status, rec.Body)
		}
	}
	if New(Forced, "x").Status() != 500 {
		t.Error("Forced without a status must be a 500")
	}
}
