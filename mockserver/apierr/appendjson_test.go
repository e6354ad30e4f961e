package apierr

import (
	"net/http/httptest"
	"testing"
)

// own is data that writes its own JSON, or declines to.
type own struct {
	A       string `json:"a"`
	decline bool
}

func (o own) AppendJSON(b []byte) ([]byte, bool) {
	if o.decline {
		return append(b, "garbage"...), false
	}
	b, ok := AppendString(append(b, `{"a":`...), o.A)
	return append(b, '}'), ok
}

// TestWriteDataTakesAnAppendersJSONOrEncodesIt: the answer is the same
// envelope whether the data writes its own JSON or declines (then nothing
// it appended is sent).
func TestWriteDataTakesAnAppendersJSONOrEncodesIt(t *testing.T) {
	for _, o := range []own{{A: "x"}, {A: "x", decline: true}, {A: `q"`}} {
		rec := httptest.NewRecorder()
		WriteData(rec, o)
		want := `{"status":"success","data":{"a":` + map[string]string{"x": `"x"`, `q"`: `"q\""`}[o.A] + `}}`
		if got := rec.Body.String(); got != want || rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%+v: %d %q, want 200 %q", o, rec.Code, got, want)
		}
	}
}
