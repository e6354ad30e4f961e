package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNearKeysAreTheCarelessMatches: each near miss is one a careless
// comparison takes for the key, none is the key, and a short key gets no
// near miss that would redact a mere letter or two of every report.
func TestNearKeysAreTheCarelessMatches(t *testing.T) {
	for key, want := range map[string][]string{
		"secret-key-1": {"secret-key-x", "secret-key-1x", "secret-key-", "SECRET-KEY-1"},
		"abcdefgx":     {"abcdefgy", "abcdefgxy", "abcdefg", "ABCDEFGX"},
		"k1":           {"kx", "k1x", "K1"},
		"12345":        {"1234x", "12345x"},
		"":             nil,
	} {
		got := NearKeys(key)
		if !slices.Equal(got, want) {
			t.Errorf("NearKeys(%q) = %q, want %q", key, got, want)
		}
		if slices.Contains(got, key) {
			t.Errorf("NearKeys(%q) holds the key itself", key)
		}
	}
}

// TestEveryNearMissIsSentAndRedacted: Request.Near picks the near miss the
// server gets, round the list, and none of them reaches a report.
func TestEveryNearMissIsSentAndRedacted(t *testing.T) {
	const key = "secret-key-1"
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"status":"error","message":"bad key ` + r.Header.Get("Authorization") + `"}`))
	}))
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := New(u, key, "", 5*time.Second)
	near := NearKeys(key)
	for n := range len(near) + 1 {
		x := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/v1/user/model", Auth: AuthNear, Near: n})
		shown := x.Curl + " " + x.RequestHeader.Get("Authorization") + " " + x.ResponseBody + " " + x.Line()
		for _, k := range append([]string{key}, near...) {
			if strings.Contains(shown, k) {
				t.Errorf("near miss %d: %q shown in %q", n, k, shown)
			}
		}
	}
	want := append(slices.Clone(near), near[0])
	if !slices.Equal(got, want) {
		t.Errorf("the server got %q, want %q", got, want)
	}
}
