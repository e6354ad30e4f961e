package mockserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"contractkit/spec"
)

// rawExchange writes head and then the whole body on a bare connection
// before reading anything, as Python's http.client does, and returns the
// answer. A server that stops reading and closes makes the write fail (a
// reset), so the test sees the failure a real client would.
func rawExchange(t *testing.T, base, head string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatalf("writing the head: %v", err)
	}
	if body != nil {
		if _, err := io.Copy(conn, body); err != nil {
			t.Fatalf("writing the whole body before reading: %v", err)
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer body: %v", err)
	}
	return resp, b
}

func want413(t *testing.T, resp *http.Response, b []byte, msg string) {
	t.Helper()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status got %d, want 413 (%s)", resp.StatusCode, b)
	}
	var env struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(b, &env); err != nil || env.Success || !strings.Contains(env.Message, msg) {
		t.Fatalf("body got %s, want the error envelope naming %q", b, msg)
	}
	if !resp.Close {
		t.Errorf("Connection got %q, want close", resp.Header.Get("Connection"))
	}
}

// zeros is an endless body of a given length, generated on the fly.
func zeros(n int64) io.Reader { return io.LimitReader(zeroReader{}, n) }

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

const testUploadLimit = 1 << 20

func uploadHead(extra string, length int64) string {
	h := "POST /api/v1/user/dataset HTTP/1.1\r\nHost: mock\r\nAuthorization: Bearer " + testKey1 +
		"\r\nContent-Type: multipart/form-data; boundary=XX\r\n" + extra
	if length >= 0 {
		h += fmt.Sprintf("Content-Length: %d\r\n", length)
	} else {
		h += "Transfer-Encoding: chunked\r\n"
	}
	return h + "\r\n"
}

// A client that writes a body over the limit entirely before reading reads
// the 413 envelope: the server drains what it will not use.
func TestOverLimitBodyWrittenWholeGetsItsAnswer(t *testing.T) {
	ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.MaxUploadBytes = testUploadLimit }))
	prefix := "--XX\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.txt\"\r\n\r\n"
	n := int64(8 * testUploadLimit) // well past the limit and past the socket buffers
	t.Run("declared length", func(t *testing.T) {
		resp, b := rawExchange(t, ts.url, uploadHead("", int64(len(prefix))+n), io.MultiReader(strings.NewReader(prefix), zeros(n)))
		want413(t, resp, b, "1 MiB")
	})
	t.Run("found while reading", func(t *testing.T) {
		// A declared length within the limit is not possible for a body
		// over it, so a chunked body is the one the limit catches mid-read.
		var chunked bytes.Buffer
		cw := newChunked(&chunked)
		_, _ = io.Copy(cw, io.MultiReader(strings.NewReader(prefix), zeros(n)))
		cw.close()
		resp, b := rawExchange(t, ts.url, uploadHead("", -1), &chunked)
		want413(t, resp, b, "1 MiB")
	})
	t.Run("JSON body", func(t *testing.T) {
		head := "POST /api/v1/user/conversations HTTP/1.1\r\nHost: mock\r\nAuthorization: Bearer " + testKey1 +
			fmt.Sprintf("\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 4*spec.RequestLimits().JSONBodyBytes)
		resp, b := rawExchange(t, ts.url, head, zeros(4*spec.RequestLimits().JSONBodyBytes))
		want413(t, resp, b, "exceeds")
	})
	if got := ts.client(t, testKey1).datasets(); len(got) != 0 {
		t.Errorf("datasets got %d, want 0", len(got))
	}
}

// With Expect: 100-continue the 413 comes before the body: the server never
// says continue, so the client never sends it.
func TestOverLimitBodyRefusedBeforeContinue(t *testing.T) {
	ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.MaxUploadBytes = testUploadLimit }))
	resp, b := rawExchange(t, ts.url, uploadHead("Expect: 100-continue\r\n", 300<<20), nil)
	want413(t, resp, b, "1 MiB")
}

// chunkedWriter writes HTTP/1.1 chunked transfer coding.
type chunkedWriter struct{ w io.Writer }

func newChunked(w io.Writer) *chunkedWriter { return &chunkedWriter{w: w} }

func (c *chunkedWriter) Write(p []byte) (int, error) {
	if _, err := fmt.Fprintf(c.w, "%x\r\n", len(p)); err != nil {
		return 0, err
	}
	if _, err := c.w.Write(p); err != nil {
		return 0, err
	}
	_, err := io.WriteString(c.w, "\r\n")
	return len(p), err
}

func (c *chunkedWriter) close() { _, _ = io.WriteString(c.w, "0\r\n\r\n") }
