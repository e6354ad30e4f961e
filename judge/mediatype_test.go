package judge

import (
	"mime"
	"net/http"
	"testing"
)

// mediaType's fast path gives what mime.ParseMediaType gives, for plain
// values and for every value it must leave to the parser.
func TestMediaTypeAgreesWithTheParser(t *testing.T) {
	values := []string{
		"", "application/json", "text/event-stream", "multipart/form-data", "application/problem+json",
		"Application/JSON", "application/json; charset=utf-8", "application/json;", " application/json",
		"application/json ", "application", "/json", "application/", "application//json", "a/b/c",
		"application/js on", "application/json\t", "text/plain=x", "a@b/c", "application/vnd.x-y_z.1~!#$%&'*+^`|",
		"application/json,text/plain", "tëxt/plain", "x/\x7f",
	}
	for _, v := range values {
		want, _, err := mime.ParseMediaType(v)
		if err != nil {
			want = ""
		}
		if got := mediaType(http.Header{"Content-Type": {v}}); got != want {
			t.Errorf("%q: mediaType %q, the parser %q", v, got, want)
		}
	}
	if !plainMediaType("application/json") || plainMediaType("Application/json") || plainMediaType("a/b; c=d") {
		t.Error("plainMediaType does not tell a plain value from the others")
	}
}

func FuzzMediaTypeAgreesWithTheParser(f *testing.F) {
	for _, v := range []string{"application/json", "text/event-stream", "a/b/c", "A/b", "x/y;z=1"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		want, _, err := mime.ParseMediaType(v)
		if err != nil {
			want = ""
		}
		if plainMediaType(v) && v != want {
			t.Fatalf("%q: the fast path says plain, the parser gives %q (%v)", v, want, err)
		}
	})
}
