package mutation

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The input mutants cover each shape of request the suite once did not
// send (issue 31): two faults at once, encodings, ids spelt wrong, a call
// repeated, calls at once, a resource's state; each runs with the Explore
// area only (Model), and the variants beside them are valid.
func TestInputMutantsCoverEveryShape(t *testing.T) {
	shapes := map[string]int{}
	for _, m := range inputMutants {
		if !m.Model || m.Valid || m.Area != "model" {
			t.Errorf("%s: an input mutant is Model, not valid, in area model", m.Name)
		}
		shape, _, _ := strings.Cut(m.Name, "-")
		shapes[shape]++
	}
	for shape, least := range map[string]int{"pair": 3, "encoding": 5, "id": 2, "repeat": 2, "burst": 1, "state": 3} {
		if shapes[shape] < least {
			t.Errorf("%d input mutants of shape %s, want at least %d", shapes[shape], shape, least)
		}
	}
	for _, v := range append(append([]Mutant{}, inputVariants...), inputLatitude...) {
		if !v.Valid || !strings.HasPrefix(v.Name, "valid-") {
			t.Errorf("%s: a variant", v.Name)
		}
	}
	for _, v := range inputLatitude {
		if !v.Model {
			t.Errorf("%s: a variant where the model has latitude is Model", v.Name)
		}
	}
}

// TestARefusalAnswersTheStatusItStates: a mutant that refuses a request
// answers with the status its rule names (415 for a charset, 406 for an
// Accept list), never with the 404 of the path the refused request is sent
// to, and a request it does not refuse passes untouched.
func TestARefusalAnswersTheStatusItStates(t *testing.T) {
	for _, tc := range []struct {
		mutant, header, value string
		want                  int
	}{
		{"encoding-charset-refused", "Content-Type", "application/json; charset=utf-8", http.StatusUnsupportedMediaType},
		{"encoding-accept-list-406", "Accept", "application/json, text/plain, */*", http.StatusNotAcceptable},
		{"encoding-media-type-case", "Content-Type", "Application/JSON", http.StatusBadRequest},
	} {
		c := wrapped(t, tc.mutant)
		c.key = bearer(testKeyA)
		send := func(value string) (int, []byte) {
			req, _ := http.NewRequest(http.MethodPost, c.url+"/api/v1/user/conversations", strings.NewReader(`{"model_id":1,"title":"t"}`))
			req.Header.Set("Authorization", c.key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(tc.header, value)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, b
		}
		if status, b := send(tc.value); status != tc.want || !strings.Contains(string(b), `"status":"error"`) {
			t.Errorf("%s: %s %q got %d %.200s, want %d with the error envelope", tc.mutant, tc.header, tc.value, status, b, tc.want)
		}
		plain := "application/json"
		if status, b := send(plain); status == tc.want || status == http.StatusNotFound && strings.Contains(string(b), "refused") {
			t.Errorf("%s: %s %q got %d %.200s: refused though the rule does not apply", tc.mutant, tc.header, plain, status, b)
		}
	}
}
