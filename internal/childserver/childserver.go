// Package childserver starts a server as a child process on a port the
// system picks (it is given port 0) and reads back, from the line the
// server prints once it listens, the address it got: no port is guessed, so
// two servers cannot take the same one, and no one polls or sleeps until
// the server is up. The mutation runner starts its mocks this way, and
// cmd/loadtest the servers it measures.
package childserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Server is a started child server.
type Server struct {
	// Addr is the address the server printed (host:port).
	Addr string
	// Printed are the lines of standard output up to the one that gave
	// Addr, that one included (another address a server prints first, say).
	Printed []string

	name   string
	cmd    *exec.Cmd
	stderr *Tail         // nil when the caller took cmd.Stderr
	exited chan struct{} // closed when the process has ended
	err    error         // Wait's result, set before exited is closed
}

// Start starts cmd (named name in errors) and waits until its standard
// output prints a line that listening matches: the first group of the
// match is the address. The rest of the output is read and dropped, so the
// server never blocks on it. cmd.Stderr, when nil, is kept in a Tail whose
// last line the errors quote (Server.LastError); a caller that sets it
// keeps it. Start fails when the process ends first, when timeout passes
// (the process is killed) or when ctx ends. A command made with
// exec.CommandContext ends with its context too.
func Start(ctx context.Context, name string, cmd *exec.Cmd, listening *regexp.Regexp, timeout time.Duration) (*Server, error) {
	pr, pw := io.Pipe()
	s := &Server{name: name, cmd: cmd, exited: make(chan struct{})}
	cmd.Stdout = pw
	if cmd.Stderr == nil {
		s.stderr = &Tail{}
		cmd.Stderr = s.stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	go func() {
		s.err = cmd.Wait()
		pw.Close()
		close(s.exited)
	}()
	type found struct {
		addr    string
		printed []string
	}
	addr := make(chan found, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		var printed []string
		done := false
		for sc.Scan() {
			if done {
				continue
			}
			printed = append(printed, sc.Text())
			if g := listening.FindStringSubmatch(sc.Text()); g != nil {
				done = true
				addr <- found{g[1], printed}
			}
		}
		_, _ = io.Copy(io.Discard, pr) // a line too long for the scanner: keep the server unblocked
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case f := <-addr:
		s.Addr, s.Printed = f.addr, f.printed
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("%s exited before listening (%v): %s", name, s.err, s.LastError())
	case <-timer.C:
		s.Kill()
		return nil, fmt.Errorf("%s printed no address within %s: %s", name, timeout, s.LastError())
	case <-ctx.Done():
		s.Kill()
		return nil, fmt.Errorf("%s did not start: %w", name, ctx.Err())
	}
}

// Exited is closed when the process has ended.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Err is how the process ended (exec.Cmd.Wait's result), once Exited is
// closed.
func (s *Server) Err() error { return s.err }

// Pid is the process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// LastError is the last line the process wrote to its standard error, when
// Start keeps it.
func (s *Server) LastError() string {
	if s.stderr == nil {
		return "(its standard error is not kept)"
	}
	return s.stderr.Last()
}

// Kill ends the process at once and waits for it.
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill() // already gone is fine
	<-s.exited
}

// Stop asks the process to end (an interrupt, so a server can shut down
// gracefully), kills it when it is still there after grace, and waits.
func (s *Server) Stop(grace time.Duration) {
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.Kill()
		return
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-t.C:
		s.Kill()
	}
}

// Tail keeps the end of a process's output, for error messages. It is safe
// for concurrent use.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

// tailSize is how many bytes a Tail keeps.
const tailSize = 4 << 10

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// Last is the last non-empty line written, or "(no output)".
func (t *Tail) Last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if s := lines[len(lines)-1]; s != "" {
		return s
	}
	return "(no output)"
}
