package store

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/apierr"
)

// TestConversationViewJSONIsEncodingJSONs: the view's own JSON is byte for
// byte what encoding/json writes (HTML unescaped, as apierr does), or the
// view declines and encoding/json writes it; the answer is the same.
func TestConversationViewJSONIsEncodingJSONs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "New conversation", "a b c", `q"uote`, `back\slash`, "<html>&", "é", "tab\t", "\u2028", "\x7f", "\xff", "日本"}
	zones := []*time.Location{time.UTC, time.FixedZone("X", 5*3600+30*60), time.FixedZone("Y", -7*3600)}
	when := func() time.Time {
		t := time.Unix(rng.Int64N(4e9)-1e9, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))])
		switch rng.IntN(4) {
		case 0:
			return t.Truncate(time.Second)
		case 1:
			return t.Truncate(time.Millisecond)
		case 2:
			return time.Date(10000+rng.IntN(5), 1, 1, 0, 0, 0, 0, time.UTC) // MarshalJSON fails
		}
		return t
	}
	declined := 0
	for i := range 5000 {
		v := ConversationView{
			ID: "8a1f" + strs[rng.IntN(len(strs))], ModelID: rng.Int64N(1<<40) - 5, CreatedAt: when(), UpdatedAt: when(),
			TotalMessages: rng.IntN(100), Title: strs[rng.IntN(len(strs))], Message: strs[rng.IntN(len(strs))],
		}
		if rng.IntN(2) == 0 {
			ts := when()
			v.MessageTimestamp = &ts
		}
		want, wantErr := apierr.Marshal(v)
		got, ok := v.AppendJSON([]byte("prefix"))
		if !ok {
			declined++
			continue
		}
		if wantErr != nil || !strings.HasPrefix(string(got), "prefix") || string(got[len("prefix"):]) != string(want) {
			t.Fatalf("view %d: got %s, want %s (%v)", i, got, want, wantErr)
		}
		if !json.Valid(got[len("prefix"):]) {
			t.Fatalf("view %d: not JSON: %s", i, got)
		}
	}
	if declined == 0 || declined == 5000 {
		t.Errorf("%d of 5000 views declined: the comparison covers too little", declined)
	}
}
