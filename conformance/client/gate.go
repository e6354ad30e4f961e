package client

import (
	"fmt"

	"contractkit/exchange"
)

// Gate is asked before every request the client sends, in one place (Do
// and Open), and told what came of it: the run's budget (package budget)
// behind a thin layer of the suite. The client knows nothing of costs.
type Gate interface {
	// Admit is asked before r is sent; body is r's wire body and
	// contentType its type. A non-nil error withholds r: nothing is sent,
	// and the exchange returned carries the error in Withheld. Otherwise
	// settle is called once with the exchange when its answer is known
	// (its body read, for Do; its status and headers, for Open).
	Admit(r Request, body []byte, contentType string) (settle func(*exchange.Exchange), err error)
}

// SetGate makes g the gate of every later request (nil: none). Call it
// before the first request.
func (c *Client) SetGate(g Gate) { c.gate = g }

// admit asks the gate about r. It returns the function that settles the
// call, or the recorded exchange of a withheld request.
func (c *Client) admit(r Request) (settle func(*exchange.Exchange), withheld *exchange.Exchange) {
	nothing := func(*exchange.Exchange) {}
	if c.gate == nil {
		return nothing, nil
	}
	body, contentType, _, _, err := encodeBody(r)
	if err != nil {
		return nothing, nil // send reports it
	}
	settle, err = c.gate.Admit(r, body, contentType)
	if err == nil {
		if settle == nil {
			settle = nothing
		}
		return settle, nil
	}
	x := &exchange.Exchange{Method: r.Method, URL: c.redact.String(c.url(r.Path, r.query())), Path: r.Path, RawQuery: r.query(),
		Error: fmt.Sprintf("not sent: %s", c.redact.String(err.Error())), Withheld: err}
	c.record(x)
	return nil, x
}

// pend keeps settle for an opened call until Finish reads its body.
func (c *Client) pend(x *exchange.Exchange, settle func(*exchange.Exchange)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[*exchange.Exchange]func(*exchange.Exchange){}
	}
	c.pending[x] = settle
}

// settlePending settles an opened call with what Finish read.
func (c *Client) settlePending(x *exchange.Exchange) {
	c.mu.Lock()
	settle, ok := c.pending[x]
	delete(c.pending, x)
	c.mu.Unlock()
	if ok {
		settle(x)
	}
}
