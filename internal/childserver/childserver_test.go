package childserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"testing"
	"time"
)

// modeVar makes the test binary play a child server (see TestMain).
const modeVar = "CHILDSERVER_TEST_MODE"

// TestMain: with modeVar set, the binary is the child: "serve" listens on
// port 0, prints its address and serves until interrupted; "fail" writes
// an error and exits; "silent" prints nothing and waits; "deaf" serves but
// ignores interrupts.
func TestMain(m *testing.M) {
	switch os.Getenv(modeVar) {
	case "":
		os.Exit(m.Run())
	case "fail":
		fmt.Fprintln(os.Stderr, "child: listen tcp: boom")
		os.Exit(3)
	case "silent":
		select {}
	case "serve", "deaf":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(1)
		}
		stop := make(chan os.Signal, 1)
		if os.Getenv(modeVar) == "deaf" {
			signal.Ignore(os.Interrupt)
		} else {
			signal.Notify(stop, os.Interrupt) // before the address: the parent may stop it at once
		}
		fmt.Println("some banner")
		fmt.Printf("child listening on http://%s (ready)\n", ln.Addr())
		go func() {
			_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hi") }))
		}()
		<-stop
		os.Exit(0)
	}
	os.Exit(2)
}

var listening = regexp.MustCompile(`listening on http://(\S+)`)

func child(t *testing.T, ctx context.Context, mode string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), modeVar+"="+mode)
	return cmd
}

func TestStartReadsTheAddressAndStopEndsTheServer(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, "child", child(t, ctx, "serve"), listening, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Printed) != 2 || s.Printed[0] != "some banner" || !strings.HasPrefix(s.Printed[1], "child listening on") {
		t.Errorf("printed %q, want the banner and the listening line", s.Printed)
	}
	resp, err := http.Get("http://" + s.Addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hi" {
		t.Errorf("the server at %s answered %q", s.Addr, b)
	}
	s.Stop(time.Minute)
	if err := s.Err(); err != nil {
		t.Errorf("an interrupted server ended with %v, want exit 0", err)
	}
}

func TestStopKillsAServerThatIgnoresTheInterrupt(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, "child", child(t, ctx, "deaf"), listening, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s.Stop(100 * time.Millisecond)
	select {
	case <-s.Exited():
	default:
		t.Fatal("Stop returned with the process still there")
	}
}

func TestStartErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Start(ctx, "child", child(t, ctx, "fail"), listening, time.Minute); err == nil ||
		!strings.Contains(err.Error(), "child exited before listening") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a child that exits: got %v, want its exit and its last error line", err)
	}
	if _, err := Start(ctx, "child", child(t, ctx, "silent"), listening, 200*time.Millisecond); err == nil ||
		!strings.Contains(err.Error(), "child printed no address within 200ms") {
		t.Errorf("a silent child: got %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := Start(cctx, "child", child(t, cctx, "silent"), listening, time.Minute); err == nil ||
		!strings.Contains(err.Error(), "child did not start") {
		t.Errorf("a cancelled start: got %v", err)
	}
	if _, err := Start(ctx, "child", exec.Command("/nonexistent/child"), listening, time.Minute); err == nil ||
		!strings.HasPrefix(err.Error(), "child: ") {
		t.Errorf("a missing binary: got %v", err)
	}
}

func TestACallersStderrIsLeftAlone(t *testing.T) {
	ctx := context.Background()
	cmd := child(t, ctx, "fail")
	var tail Tail
	cmd.Stderr = &tail
	_, err := Start(ctx, "child", cmd, listening, time.Minute)
	if err == nil || strings.Contains(err.Error(), "boom") || !strings.Contains(tail.Last(), "boom") {
		t.Errorf("got %v and a caller's tail %q: want the error line in the caller's tail only", err, tail.Last())
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	var tl Tail
	if got := tl.Last(); got != "(no output)" {
		t.Errorf("empty tail: %q", got)
	}
	for i := range 2000 {
		fmt.Fprintf(&tl, "line %d\n", i)
	}
	if got := tl.Last(); got != "line 1999" {
		t.Errorf("last = %q", got)
	}
	if len(tl.buf) > tailSize {
		t.Errorf("kept %d bytes, want at most %d", len(tl.buf), tailSize)
	}
}
