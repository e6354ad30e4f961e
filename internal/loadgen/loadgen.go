// Package loadgen is the load generator of make loadtest and of the mock's
// ratio benchmarks: prebuilt HTTP/1.1 requests written as they are on
// kept-alive connections, responses read just enough to find their end. A
// raw client, like wrk, keeps its own cost per request small and equal for
// every server it measures, so a ratio between two servers is theirs.
package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Request is one prebuilt HTTP/1.1 request, sent as is on a kept-alive
// connection.
type Request struct {
	Name string
	Raw  []byte
}

// NewRequest builds a request for host (the Host header) with the given
// headers and body (a Content-Length is added for a body).
func NewRequest(name, method, host, path string, header map[string]string, body []byte) Request {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, host)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	if body != nil {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.Write(body)
	return Request{Name: name, Raw: b.Bytes()}
}

// Result of one run against one server.
type Result struct {
	OK, Failed int64
	Elapsed    time.Duration
	FirstErr   error
}

// Rate is the answers with status 200 per second.
func (r Result) Rate() float64 { return float64(r.OK) / r.Elapsed.Seconds() }

// Hammer sends req over conns kept-alive connections to addr for d and
// counts the answers with status 200.
func Hammer(addr string, req Request, conns int, d time.Duration) Result {
	return run(addr, req, conns, d, -1)
}

// Send sends req n times over conns kept-alive connections to addr (or for
// at most d), and counts the answers with status 200.
func Send(addr string, req Request, conns int, n int64, d time.Duration) Result {
	return run(addr, req, conns, d, n)
}

// run is Hammer with a budget of requests; a negative budget is unlimited.
func run(addr string, req Request, conns int, d time.Duration, budget int64) Result {
	var ok, failed atomic.Int64
	var left atomic.Int64
	left.Store(budget)
	var errOnce sync.Once
	var firstErr error
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			fail := func(err error) {
				failed.Add(1)
				errOnce.Do(func() { firstErr = err })
			}
			var c net.Conn
			var br *bufio.Reader
			for time.Now().Before(deadline) {
				if budget >= 0 && left.Add(-1) < 0 {
					break
				}
				if c == nil {
					var err error
					if c, err = net.DialTimeout("tcp", addr, 5*time.Second); err != nil {
						fail(err)
						time.Sleep(10 * time.Millisecond) // a refused dial must not spin
						c = nil
						continue
					}
					br = bufio.NewReaderSize(c, 16<<10)
				}
				_ = c.SetDeadline(deadline.Add(5 * time.Second))
				status, keep, err := roundTrip(c, br, req.Raw)
				switch {
				case err != nil:
					fail(err)
				case status != 200:
					fail(fmt.Errorf("status %d", status))
				default:
					ok.Add(1)
				}
				if err != nil || !keep {
					c.Close()
					c = nil
				}
			}
			if c != nil {
				c.Close()
			}
		})
	}
	wg.Wait()
	return Result{OK: ok.Load(), Failed: failed.Load(), Elapsed: time.Since(start), FirstErr: firstErr}
}

// roundTrip writes raw and reads one whole response: its status and
// whether the connection may be reused.
func roundTrip(c net.Conn, br *bufio.Reader, raw []byte) (status int, keep bool, err error) {
	if _, err := c.Write(raw); err != nil {
		return 0, false, err
	}
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked, keep := int64(-1), false, true
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, _ := bytes.Cut(line, []byte(":"))
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.ParseInt(string(v), 10, 64); err != nil {
				return 0, false, fmt.Errorf("bad Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			keep = !bytes.EqualFold(v, []byte("close"))
		}
	}
	switch {
	case chunked:
		err = discardChunked(br)
	case length >= 0:
		_, err = br.Discard(int(length))
	default:
		return status, false, errors.New("a response without a length")
	}
	return status, keep && err == nil, err
}

func discardChunked(br *bufio.Reader) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.SplitN(line, []byte(";"), 2)[0])), 16, 64)
		if err != nil {
			return fmt.Errorf("bad chunk size %q", line)
		}
		if _, err := br.Discard(int(size) + 2); err != nil { // the data and its CRLF
			return err
		}
		if size == 0 {
			return nil // no trailers are sent by the servers measured
		}
	}
}
