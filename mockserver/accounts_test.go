package mockserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"contractkit/fixtures"
	"contractkit/mockserver/store"
)

// withOpenKeys lets keys matching the patterns open accounts.
func withOpenKeys(patterns ...string) serverOption {
	return withConfig(func(c *Config) { c.OpenKeys = patterns })
}

type accountView struct {
	Account string `json:"account"`
	Open    bool   `json:"open"`
	Pattern string `json:"pattern"`
}

func whoAmI(t *testing.T, c *apiClient) accountView {
	t.Helper()
	var v accountView
	c.get("/admin/account").want(t, 200).data(t, &v)
	return v
}

func modelNames(ms []store.ModelView) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	slices.Sort(out)
	return out
}

// TestOpenKeysOpenAnAccountEach: two keys of the pattern each get an account
// of their own, preloaded with the fixtures (same names, ids of their own
// block), with their own overrides and journal.
func TestOpenKeysOpenAnAccountEach(t *testing.T) {
	ts := newTestServer(t, withOpenKeys("test-*"))
	w0, w1, one := ts.client(t, "test-0"), ts.client(t, "test-1"), ts.client(t, testKey1)

	m0, m1, m := w0.models(), w1.models(), one.models()
	if len(m0) != 3 || !slices.Equal(modelNames(m0), modelNames(m)) || !slices.Equal(modelNames(m1), modelNames(m)) {
		t.Fatalf("open accounts' models got %v and %v, want the fixtures' %v", modelNames(m0), modelNames(m1), modelNames(m))
	}
	if m0[0].ID == m1[0].ID || m0[0].ID == m[0].ID {
		t.Errorf("the first fixture model has id %d, %d and %d: each account numbers its own", m0[0].ID, m1[0].ID, m[0].ID)
	}
	w1.get("/api/v1/user/model/"+itoa(m0[0].ID)).wantError(t, 404) // no account reaches another's records

	a0, a1 := whoAmI(t, w0), whoAmI(t, w1)
	if a0.Account == a1.Account || !a0.Open || a0.Pattern != "test-*" || !strings.HasPrefix(a0.Account, "open-") {
		t.Errorf("GET /admin/account got %+v and %+v, want two open accounts of test-*", a0, a1)
	}
	if v := whoAmI(t, one); v.Open || v.Account != "account-1" {
		t.Errorf("a configured key's account got %+v", v)
	}

	// An override of one worker is never spent by another's call.
	setOverride(t, w0, getModel503(map[string]any{"times": 1, "respond": map[string]any{"status": 500}}))
	w1.get("/api/v1/user/model/"+itoa(m1[0].ID)).want(t, 200)
	if n := len(listOverrides(t, w1)); n != 0 {
		t.Errorf("test-1 lists %d overrides, want none (test-0 set one)", n)
	}
	w0.get("/api/v1/user/model/"+itoa(m0[0].ID)).wantError(t, 500)
	w0.get("/api/v1/user/model/"+itoa(m0[0].ID)).want(t, 200)

	// Each journal holds its own key's calls; a DELETE clears its own only.
	w1.do("DELETE", "/admin/requests").want(t, 200)
	j0 := journalOf(t, w0, "?path=/api/v1/user/model/")
	if len(j0) != 2 || j0[0]["status"] != float64(500) {
		t.Errorf("test-0's journal got %d model calls (first %v), want its own 2 (500, then 200)", len(j0), j0[0]["status"])
	}
	if j1 := journalOf(t, w1, ""); len(j1) != 0 {
		t.Errorf("test-1's journal holds %d calls after its DELETE", len(j1))
	}

	// A reset preloads the fixtures again, with the same ids.
	w0.post("/admin/reset", nil).want(t, 200)
	if again := w0.models(); again[0].ID != m0[0].ID {
		t.Errorf("after a reset the first model is %d, want %d again", again[0].ID, m0[0].ID)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestOpenKeysKeepOthersOut: keys outside every pattern keep their 401, and
// a configured key that also matches a pattern keeps its own account.
func TestOpenKeysKeepOthersOut(t *testing.T) {
	ts := newTestServer(t, withOpenKeys("test-*", "e2e-??"), withConfig(func(c *Config) { c.Keys = append(c.Keys, "test-configured") }))
	c := ts.client(t, "")
	for _, key := range []string{"test", "Test-1", "xtest-1", "e2e-1", "e2e-123", "sk-unknown", "test-" + strings.Repeat("x", 300)} {
		c.get("/api/v1/user/model", withAuth("Bearer "+key)).wantError(t, 401, "invalid api key")
		c.get("/admin/requests", withAuth("Bearer "+key)).wantError(t, 401)
	}
	if v := whoAmI(t, ts.client(t, "test-configured")); v.Open || v.Account != "account-3" {
		t.Errorf("a configured key matching the pattern got %+v, want its configured account-3", v)
	}
	if v := whoAmI(t, ts.client(t, "e2e-ab")); !v.Open || v.Pattern != "e2e-??" {
		t.Errorf("e2e-ab got %+v, want an account of e2e-??", v)
	}
}

// TestOpenKeysAreBounded: past MaxOpenAccounts a new key is refused with the
// reason; the accounts already open go on.
func TestOpenKeysAreBounded(t *testing.T) {
	ts := newTestServer(t, withOpenKeys("test-*"), withConfig(func(c *Config) { c.MaxOpenAccounts = 2 }))
	w0, w1 := ts.client(t, "test-0"), ts.client(t, "test-1")
	w0.models()
	w1.models()
	ts.client(t, "test-2").get("/api/v1/user/model").wantError(t, 401, "2 open accounts", "--open-keys-max")
	w0.models()
	w1.models()
	if n := ts.srv.open.count(); n != 2 {
		t.Errorf("%d open accounts, want 2", n)
	}
}

// TestOpenKeyFirstUseOpensOneAccount: many first requests of one key at once
// open one account, preloaded once.
func TestOpenKeyFirstUseOpensOneAccount(t *testing.T) {
	ts := newTestServer(t, withOpenKeys("test-*"))
	var wg sync.WaitGroup
	names := make([]string, 8)
	counts := make([]int, 8)
	for i := range names {
		wg.Go(func() {
			c := ts.client(t, "test-burst")
			counts[i] = len(c.models())
			names[i] = whoAmI(t, c).Account
		})
	}
	wg.Wait()
	for i := range names {
		if names[i] != names[0] || counts[i] != 3 {
			t.Fatalf("the requests saw accounts %v with %v models, want one account with the 3 fixture models", names, counts)
		}
	}
	if n := ts.srv.open.count(); n != 1 {
		t.Errorf("%d open accounts, want 1", n)
	}
}

// TestOpenAccountsStayOutOfTheStateFile: --state keeps the configured
// accounts only.
func TestOpenAccountsStayOutOfTheStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	ts := newTestServer(t, withOpenKeys("test-*"), withConfig(func(c *Config) { c.StateFile = path }))
	ts.client(t, "test-0").models()
	if err := ts.srv.SaveState(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Accounts []struct {
			Name string `json:"name"`
		} `json:"accounts"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range snap.Accounts {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, []string{"account-1", "account-2"}) {
		t.Errorf("the state file holds %v, want the configured accounts only", names)
	}
}

// TestFixtureRulesPerKey: a rule gives the keys it matches their own
// preload (here none), at the start and after a reset, configured or open.
func TestFixtureRulesPerKey(t *testing.T) {
	ts := newTestServer(t, withOpenKeys("test-*", "empty-*"), withConfig(func(c *Config) {
		c.FixtureRules = []FixtureRule{{Pattern: "empty-*"}, {Pattern: testKey2}}
	}))
	for _, key := range []string{"empty-0", testKey2} {
		c := ts.client(t, key)
		if n := len(c.models()); n != 0 {
			t.Errorf("%s: %d models, want an empty account", key, n)
		}
		c.post("/admin/reset", nil).want(t, 200)
		if n := len(c.datasets()); n != 0 {
			t.Errorf("%s: %d datasets after a reset, want none", key, n)
		}
	}
	if n := len(ts.client(t, "test-0").models()); n != 3 {
		t.Errorf("test-0: %d models, want the 3 fixture models", n)
	}
}

// TestOpenFixturesAreCheckedAtStart: a set only open keys would get is
// loaded once at start, so a broken one stops New.
func TestOpenFixturesAreCheckedAtStart(t *testing.T) {
	b := fixtures.Default()
	b.Set.Models[0].Dataset = "no-such-dataset"
	_, err := New(Config{Keys: []string{testKey1}, OpenKeys: []string{"test-*"},
		FixtureRules: []FixtureRule{{Pattern: "test-*", Fixtures: &b}}})
	if err == nil || !strings.Contains(err.Error(), "open keys") {
		t.Fatalf("New got %v, want the broken set of the open keys refused", err)
	}
}
