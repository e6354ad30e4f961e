package client

import (
	"context"
	"strings"

	"contractkit/exchange"
	"contractkit/judge"
)

// Every answer the client reads goes through the one judge (SetJudge),
// once, when it is read: a written check's, the reference model's, the
// property part's, a clean-up's, a 429 waited out. What the judge finds on
// the server's side is kept until a caller takes it: a check that judges
// an exchange itself claims it (Verdict), and the suite sweeps the rest
// (Sweep), so every finding is reported once, with the class of the rule
// it breaks, whoever read the answer. Nothing is judged that the server
// cannot be blamed for: a request never sent (withheld, an area stopped),
// or one whose reading the caller stopped (its context ended, not the
// request's own timeout).

// maxUnswept bounds the exchanges with findings kept between two sweeps:
// against a server that breaks every answer, the oldest are dropped and
// counted.
const maxUnswept = 4096

// Judged is an exchange the judge found the server breaking rules in,
// as the reports show it (excerpts, no raw bodies).
type Judged struct {
	X *exchange.Exchange
	// Findings are the server's findings, every class.
	Findings judge.Findings
}

// verdicts holds the findings of the exchanges read since the last sweep
// (guarded by Client.mu).
type verdicts struct {
	// all is every exchange's whole verdict (both sides; empty for a
	// pass), by Seq, until it is claimed or swept, the oldest pruned.
	all map[uint64]judge.Findings
	// server lists, in order, the exchanges whose verdict has server
	// findings and that no caller claimed yet.
	server []Judged
	// dropped counts the exchanges with findings dropped past maxUnswept.
	dropped int
}

// SetJudge makes j judge every answer the client reads from now on. Call
// it before the first request.
func (c *Client) SetJudge(j *judge.Judge) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.judge = j
}

// Judge is the client's judge (nil before SetJudge).
func (c *Client) Judge() *judge.Judge {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.judge
}

// judgeRead judges x once its answer is read (s: an event stream as its
// reader parsed it, nil to parse x.Raw; cut: the reader stopped early on
// purpose), and keeps the verdict until it is claimed or swept. ctx is the
// request's, for an answer the client read itself (nil otherwise): when
// the caller's context ended first, the answer's end is the caller's
// doing and the exchange is judged as cut.
func (c *Client) judgeRead(ctx context.Context, x *exchange.Exchange, s *judge.Stream, cut bool) {
	c.mu.Lock()
	j := c.judge
	c.mu.Unlock()
	if j == nil || x.Withheld != nil || strings.HasPrefix(x.Error, "not sent") || strings.HasPrefix(x.Error, "building the request") {
		return
	}
	if ctx != nil && ctx.Err() != nil && context.Cause(ctx) != errAttemptTimeout {
		cut = true
	}
	fs := j.Verdict(x, s, cut)
	if fs == nil {
		fs = judge.Findings{} // judged, and found nothing: kept as such
	}
	kept := *x
	kept.Raw, kept.Sent = nil, nil
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verdicts.all == nil {
		c.verdicts.all = map[uint64]judge.Findings{}
	}
	c.verdicts.all[x.Seq] = fs
	if server := fs.Side(judge.Server); len(server) > 0 {
		if len(c.verdicts.server) == maxUnswept {
			delete(c.verdicts.all, c.verdicts.server[0].X.Seq)
			c.verdicts.server = c.verdicts.server[1:]
			c.verdicts.dropped++
		}
		c.verdicts.server = append(c.verdicts.server, Judged{X: &kept, Findings: server})
	}
	if len(c.verdicts.all) > 2*maxUnswept {
		// Verdicts nobody claimed: judged, not kept forever.
		for seq := range c.verdicts.all {
			if seq+2*maxUnswept < x.Seq {
				delete(c.verdicts.all, seq)
			}
		}
	}
}

// Verdict is the one judge's verdict on x, an exchange this client sent,
// as judged when its answer was read, and claims it: the caller reports
// its findings, so Sweep leaves it out. An exchange whose verdict is no
// longer kept (swept, or never judged: no judge was set) is judged now.
func (c *Client) Verdict(x *exchange.Exchange) judge.Findings {
	c.mu.Lock()
	fs, ok := c.verdicts.all[x.Seq]
	if ok {
		delete(c.verdicts.all, x.Seq)
		for i, v := range c.verdicts.server {
			if v.X.Seq == x.Seq {
				c.verdicts.server = append(c.verdicts.server[:i:i], c.verdicts.server[i+1:]...)
				break
			}
		}
	}
	j := c.judge
	c.mu.Unlock()
	switch {
	case ok:
		return fs
	case j == nil || x.Seq != 0 && x.Raw == nil && x.Status != 0:
		return nil
	}
	return j.Verdict(x, nil, false)
}

// Claim marks x as reported by its caller without asking for its verdict
// (a check that judged it by other means, or an answer a check was told
// to expect broken): Sweep leaves it out.
func (c *Client) Claim(x *exchange.Exchange) { c.Verdict(x) }

// Sweep returns the exchanges read since the last sweep whose answers
// broke a rule and that no caller claimed, in the order they were read,
// and how many more were dropped past the bound; it forgets them.
func (c *Client) Sweep() (judged []Judged, dropped int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	judged, dropped = c.verdicts.server, c.verdicts.dropped
	c.verdicts = verdicts{all: c.verdicts.all}
	for _, v := range judged {
		delete(c.verdicts.all, v.X.Seq)
	}
	return judged, dropped
}
