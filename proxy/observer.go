package proxy

import (
	"contractkit/exchange"
	"contractkit/judge"
)

// The seam for what else watches the traffic: contract coverage and the
// recording of fixtures get every finished exchange, and every stream
// chunk as it passes.

// Exchange is one finished exchange as observers get it. The request
// header holds the client's Authorization: an observer must never write or
// print it.
type Exchange struct {
	// Observed is the request and the answer as they passed (the
	// answer's body up to the proxy's bound).
	exchange.Observed
	// Operation is the contract's operationId, "" outside the contract.
	Operation string
	// ResponseBodyCut says the answer was over the proxy's bound.
	ResponseBodyCut bool
	// Stream marks an event-stream answer.
	Stream bool
	// LeftByClient says the client went away before the answer ended.
	LeftByClient bool
	// Verdict is everything the one judge found in the exchange as it
	// passed, both sides, every class: what the proxy reported of it.
	Verdict judge.Findings
	// Answer is the answer's JSON body as the judge parsed it, once, for
	// every reader (OK false when the judge did not parse it: a stream, an
	// answer cut or broken off, a body that is not JSON).
	Answer judge.Parsed
}

// Observer watches the traffic. Its methods are called from the
// exchanges' goroutines, concurrently: an Observer must be safe for
// concurrent use, and quick (a stream waits for ObserveEvent).
type Observer interface {
	// Observe gets every exchange once it is finished.
	Observe(x *Exchange)
	// ObserveEvent gets the data (JSON) of each chunk of an event stream
	// as it passes.
	ObserveEvent(method, path string, data []byte)
}
