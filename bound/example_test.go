package bound_test

import (
	"errors"
	"fmt"
	"strings"

	"contractkit/bound"
)

// A body over its bound is cut there, with a reason of its own.
func ExampleReadAll() {
	body, err := bound.ReadAll(strings.NewReader(strings.Repeat("x", 100)), bound.Limits{Bytes: 64}, nil)
	fmt.Println(len(body), err)
	fmt.Println(errors.Is(err, bound.ErrOverSize), bound.Classify(err) == bound.OverSize)
	// Output:
	// 64 the answer's body is over 64 bytes: reading stopped there
	// true true
}

// Three deadlines in a row stop an operation, once.
func ExampleStall() {
	s := bound.NewStall(bound.DefaultStall)
	idle := &bound.Error{Reason: bound.Idle, Wait: 30e9}
	for range 3 {
		if reason := s.Observe("runInference", idle); reason != "" {
			fmt.Println(reason)
		}
	}
	_, stopped := s.Stopped("runInference")
	fmt.Println(stopped)
	// Output:
	// the server stopped answering runInference: 3 deadlines in a row (the last: the stream sent no event for 30s (0 bytes in 0s), cut)
	// true
}
