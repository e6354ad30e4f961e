package proxycmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/coverage"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/proxy"
	"contractkit/spec"
)

// Whatever the proxy's judging is made of, its findings on the same
// traffic stay the same: a recorded set of exchanges (testdata, the clean
// mock's and the mutants' traffic, recorded by golden_record_test.go) is
// replayed through a proxy, and everything the proxy says of it — each
// console line, each exchange's verdict, the contract coverage and the
// report's checks — and the one judge's verdict on each exchange read
// whole must equal the golden file, written by the judging before the
// proxy's judging was made cheaper (issue 40).

var (
	recordFlag = flag.Bool("record", false, "record the exchanges of testdata/exchanges.json.gz again (the mock and its mutants)")
	updateFlag = flag.Bool("update", false, "rewrite testdata/findings.golden from what the proxy finds now")
)

const (
	exchangesFile = "testdata/exchanges.json.gz"
	goldenFile    = "testdata/findings.golden"
	// replayTarget stands for the replay server's address in the golden file.
	replayTarget = "http://TARGET"
)

func TestRecordedFindingsUnchanged(t *testing.T) {
	var set []recorded
	if *recordFlag {
		set = recordExchanges(t)
		writeExchanges(t, set)
	} else {
		set = readExchanges(t)
	}
	got := replayAll(t, set)
	if *updateFlag || *recordFlag {
		if err := os.WriteFile(goldenFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d exchanges; wrote %s", len(set), goldenFile)
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the findings on the recorded exchanges changed:\n%s", firstDifference(string(want), got))
	}
}

// replayAll sends each recorded exchange through one proxy, in order, to a
// server that answers what was recorded, and renders all that was found.
func replayAll(t *testing.T, set []recorded) string {
	var mu sync.Mutex
	var cur recorded
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		x := cur
		mu.Unlock()
		for k, v := range x.Answer {
			switch http.CanonicalHeaderKey(k) {
			case "Date", "Content-Length", "Transfer-Encoding":
			default:
				w.Header()[k] = v
			}
		}
		w.WriteHeader(x.Status)
		_, _ = w.Write(x.Response)
		if x.Broken {
			http.NewResponseController(w).Flush()
			panic(http.ErrAbortHandler)
		}
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	console := &syncBuffer{}
	lg := proxy.NewLog(console)
	cov := coverage.New(spec.Strict())
	rec := &recorder{}
	p := proxy.New(u, lg, CoverageObserver{cov}, rec)
	front := httptest.NewServer(p)
	defer front.Close()
	j := judge.New(spec.Strict(), spec.Declared())
	c := recordingClient()
	targetOut := strings.NewReplacer(upstream.URL, replayTarget)

	var out strings.Builder
	printed := 0
	for i, x := range set {
		mu.Lock()
		cur = x
		mu.Unlock()
		u := front.URL + x.Path
		if x.RawQuery != "" {
			u += "?" + x.RawQuery
		}
		var body io.Reader
		if x.Body != nil {
			body = bytes.NewReader(x.Body)
		}
		req, _ := http.NewRequest(x.Method, u, body)
		for k, v := range x.Header {
			req.Header[k] = v
		}
		if resp, err := c.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if !p.Wait(10 * time.Second) {
			t.Fatalf("%s: the proxy did not settle", x.Name)
		}
		fmt.Fprintf(&out, "## %d %s: %s %s → %d\n", i+1, x.Name, x.Method, x.Path, x.Status)
		all := console.String()
		out.WriteString(indent("console", targetOut.Replace(all[printed:])))
		printed = len(all)
		rec.mu.Lock()
		seen := rec.got
		rec.got = nil
		rec.mu.Unlock()
		for _, px := range seen {
			out.WriteString(indent("verdict", findingLines(px.Verdict)))
		}
		out.WriteString(indent("judge", findingLines(readWhole(j, x))))
	}
	r := lg.Report(replayTarget, false, time.Time{}, time.Time{})
	out.WriteString("## report\n")
	for _, ch := range r.Checks {
		fmt.Fprintf(&out, "check %s [%s]\n", ch.Behaviour, ch.State)
		if ch.Failure != nil {
			out.WriteString(indent("failure", ch.Failure.Message+"\n"))
		}
		for _, d := range ch.Differences {
			out.WriteString(indent("differs "+d.Decision, findingLines(d.Findings)))
		}
		for _, n := range ch.Notes {
			out.WriteString(indent("note "+n.Name, n.Text+"\n"))
		}
	}
	d, dec, cl := lg.Counts()
	fmt.Fprintf(&out, "counts: %d declared, %d decided, %d client\n", d, dec, cl)
	cj, err := json.MarshalIndent(cov.Report(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("## coverage\n")
	out.Write(cj)
	out.WriteString("\n")
	return targetOut.Replace(out.String())
}

// readWhole is the one judge's verdict on x read whole, as the suite's
// client reads an answer (an event stream event by event).
func readWhole(j *judge.Judge, r recorded) judge.Findings {
	o := exchange.Observed{Method: r.Method, Target: replayTarget, Path: r.Path, RawQuery: r.RawQuery,
		RequestHeader: r.Header, RequestBody: r.Body, Status: r.Status, ResponseHeader: r.Answer, ResponseBody: r.Response}
	var s *judge.Stream
	if judge.IsEventStream(r.Status, r.Answer) {
		_, cancel := context.WithCancel(context.Background())
		defer cancel()
		var body io.Reader = bytes.NewReader(r.Response)
		if r.Broken {
			body = io.MultiReader(body, errReader{})
		}
		s = judge.ReadStream(body, 5*time.Second, cancel)
	} else if r.Broken {
		o.Error = "reading the answer: unexpected EOF"
	}
	return j.Verdict(o.Exchange(), s, false)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func findingLines(fs judge.Findings) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s | %s\n", f.Side, f.Class, f.Operation, f)
	}
	return b.String()
}

func indent(label, text string) string {
	if text == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(&b, "  %s: %s\n", label, line)
	}
	return b.String()
}

// firstDifference shows where two renderings part.
func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, w, g)
		}
	}
	return "(same lines)"
}

func readExchanges(t *testing.T) []recorded {
	f, err := os.Open(exchangesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var set []recorded
	if err := json.NewDecoder(zr).Decode(&set); err != nil {
		t.Fatal(err)
	}
	return set
}

func writeExchanges(t *testing.T, set []recorded) {
	if err := os.MkdirAll(filepath.Dir(exchangesFile), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	enc.SetIndent("", " ")
	if err := enc.Encode(set); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exchangesFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
