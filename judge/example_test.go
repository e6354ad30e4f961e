package judge_test

import (
	"fmt"
	"net/http"

	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// A body missing the envelope's data is reported one finding per problem,
// each a value: where, which rule, what was wanted and what came.
func ExampleEnvelope() {
	for _, f := range judge.Envelope([]byte(`{"status":"ok"}`), "success") {
		fmt.Println(f)
	}
	// Output:
	// /status: envelope: want "success", got "ok" (§1.1)
	// /data: envelope: want present (a successful response is {status, data}), got missing (§1.1)
}

// J reads a body leniently: a missing key gives the zero J, never a panic,
// and ids read the same whether the server sends numbers or strings.
func ExampleParseJSON() {
	body, err := judge.ParseJSON([]byte(`{"status":"success","data":[{"id":7,"name":"m"}]}`))
	if err != nil {
		panic(err)
	}
	first := body.Get("data", 0)
	fmt.Println(first.Get("id").ID(), first.Get("name").Str())
	fmt.Println(body.Get("data", 5, "name").Exists())
	v, ok := body.Path("$.data[0].name")
	fmt.Println(v, ok)
	w, ok := body.Pointer("/data/0/id")
	fmt.Println(w, ok)
	// Output:
	// 7 m
	// false
	// "m" true
	// 7 true
}

// One exchange, one verdict: the request is the client's side (an integer
// dataset_id is a reading the contract decides, D-21), the answer the
// server's (served, a request read that way breaks nothing).
func ExampleJudge_Verdict() {
	x := &exchange.Exchange{
		Method: "POST", Path: "/api/v1/user/model",
		RequestHeader: http.Header{"Authorization": {"Bearer <redacted:api-key>"}, "Content-Type": {"application/json"}},
		Sent:          []byte(`{"model_name":"Support bot","dataset_id":12}`),
		Status:        200, ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		Raw: []byte(`{"status":"success","data":{"id":9,"name":"Support bot","status":"training"}}`),
	}
	for _, f := range judge.New(spec.Strict(), spec.Declared()).Verdict(x, nil, false) {
		fmt.Println(f.Side, f.Class, f)
	}
	// Output:
	// client decided /dataset_id: lenient: want a string, got 12 (D-21)
}
