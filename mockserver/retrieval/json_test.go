package retrieval

import (
	"strings"
	"testing"
)

func TestExtractJSON(t *testing.T) {
	checkKinds(t, []kindCase{
		{name: "json array", file: "people.json",
			content: `[{"name":"Alice","age":30,"address":{"city":"Paris"},"tags":["a","b"],"x":null,"ok":true},{"name":"Bob"},3]`,
			kind:    KindJSON, rows: 3,
			contains: []string{"name: Alice; age: 30; address.city: Paris; tags[0]: a; tags[1]: b; x: null; ok: true\n", "name: Bob\n3"}},
		{name: "json object", file: "cfg.json", content: `{"warranty": {"months": 24, "note": "two\nlines"}}`, kind: KindJSON, rows: 1,
			contains: []string{"warranty.months: 24; warranty.note: two lines"}},
		{name: "json scalar", file: "s.json", content: ` "hello" `, kind: KindJSON, rows: 1, contains: []string{"hello"}},
		{name: "json empty array", file: "a.json", content: `[]`, kind: KindJSON, rows: 0},
		{name: "json depth 32 accepted", file: "deep.json",
			content: strings.Repeat("[", 32) + "1" + strings.Repeat("]", 32), kind: KindJSON, rows: 1},
		{name: "jsonl", file: "events.jsonl", content: "{\"a\":1}\n\n{\"a\":2}\r\n{\"a\":3}", kind: KindJSON, rows: 3,
			contains: []string{"a: 1\na: 2\na: 3"}},
		{name: "ndjson", file: "x.ndjson", content: "[1,2]\n\"s\"\n", kind: KindJSON, rows: 2, contains: []string{"[0]: 1; [1]: 2\ns"}},
	})
}

func TestExtractJSONErrors(t *testing.T) {
	checkErrors(t, []errorCase{
		{"json truncated", "a.json", `{"a": [1, 2`, ErrMalformed},
		{"json invalid", "a.json", `{a: 1}`, ErrMalformed},
		{"json trailing value", "a.json", `{"a":1} {"b":2}`, ErrMalformed},
		{"json empty", "a.json", "", ErrMalformed},
		{"json too deep", "a.json", strings.Repeat("[", 33) + strings.Repeat("]", 33), ErrMalformed},
		{"json object too deep", "a.json", strings.Repeat(`{"k":`, 40) + "1" + strings.Repeat("}", 40), ErrMalformed},
		{"jsonl bad line", "a.jsonl", "{\"a\":1}\n{oops}\n", ErrMalformed},
		{"jsonl two values on a line", "a.jsonl", "{\"a\":1} 2\n", ErrMalformed},
	})
}
