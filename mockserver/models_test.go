package mockserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/store"
)

func TestModelCreateSpellings(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	d := c.createDataset("handbook", fixtureFile(t, "employee-handbook.md"))
	cases := []struct {
		name string
		body map[string]any
		want string
	}{
		{name: "declared", body: map[string]any{"model_name": "declared", "dataset_id": fmt.Sprint(d.ID), "description": "d", "base_model_id": 3, "training_type_id": "fine-tune", "use_case_id": 5, "persona_id": 9}, want: "declared"},
		{name: "alternative name and dataset", body: map[string]any{"name": "alternative", "dataset": fmt.Sprint(d.ID)}, want: "alternative"},
		{name: "integer dataset_id", body: map[string]any{"model_name": "integer", "dataset_id": d.ID}, want: "integer"},
		{name: "integer dataset", body: map[string]any{"name": "integer alt", "dataset": d.ID}, want: "integer alt"},
		{name: "model_name wins over name", body: map[string]any{"model_name": "first", "name": "second", "dataset_id": d.ID}, want: "first"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.client(t, c.key)
			var m store.ModelView
			c.post("/api/v1/user/model", tc.body).want(t, 200).data(t, &m)
			if m.Name != tc.want {
				t.Errorf("name got %q, want %q", m.Name, tc.want)
			}
			if m.DatasetID == nil || *m.DatasetID != d.ID {
				t.Errorf("dataset_id got %v, want %d", m.DatasetID, d.ID)
			}
			if got := c.model(m.ID); got.Name != tc.want {
				t.Errorf("get name got %q, want %q", got.Name, tc.want)
			}
		})
	}
	t.Run("declared optional fields are kept", func(t *testing.T) {
		c := ts.client(t, c.key)
		var m store.ModelView
		c.post("/api/v1/user/model", cases[0].body).want(t, 200).data(t, &m)
		if m.Description == nil || *m.Description != "d" || m.BaseModelID == nil || *m.BaseModelID != 3 ||
			m.TrainingTypeID == nil || *m.TrainingTypeID != "fine-tune" || m.PersonaID == nil || *m.PersonaID != 9 {
			t.Errorf("model got description=%v base_model_id=%v training_type_id=%v personaId=%v, want d, 3, fine-tune, 9",
				str(m.Description), m.BaseModelID, str(m.TrainingTypeID), m.PersonaID)
		}
	})
}

func TestModelCreateRefusals(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c1, c2 := ts.client(t, testKey1), ts.client(t, testKey2)
	d := c1.createDataset("handbook", fixtureFile(t, "employee-handbook.md"))
	gone := c1.createDataset("gone", fixtureFile(t, "release-notes.txt"))
	c1.do(http.MethodDelete, fmt.Sprintf("/api/v1/user/dataset/%d", gone.ID)).want(t, 200)
	other := c2.createDataset("other account", fixtureFile(t, "pricing.json"))

	cases := []struct {
		name   string
		body   any
		status int
		says   []string
	}{
		{name: "unknown dataset", body: map[string]any{"model_name": "m", "dataset_id": "424242"}, status: 404, says: []string{"424242"}},
		{name: "dataset of another account", body: map[string]any{"model_name": "m", "dataset_id": fmt.Sprint(other.ID)}, status: 404},
		{name: "soft-deleted dataset", body: map[string]any{"model_name": "m", "dataset_id": gone.ID}, status: 404},
		{name: "dataset id that is no number", body: map[string]any{"model_name": "m", "dataset_id": "abc"}, status: 404},
		{name: "missing name", body: map[string]any{"dataset_id": fmt.Sprint(d.ID)}, status: 422},
		{name: "missing dataset", body: map[string]any{"model_name": "m"}, status: 422},
		{name: "empty model_name", body: map[string]any{"model_name": "", "dataset_id": fmt.Sprint(d.ID)}, status: 422, says: []string{"model_name"}},
		{name: "model_name too long", body: map[string]any{"model_name": strings.Repeat("m", 256), "dataset_id": fmt.Sprint(d.ID)}, status: 422, says: []string{"model_name"}},
		{name: "dataset_id of the wrong type", body: map[string]any{"model_name": "m", "dataset_id": true}, status: 422, says: []string{"dataset_id"}},
		{name: "base_model_id of the wrong type", body: map[string]any{"model_name": "m", "dataset_id": fmt.Sprint(d.ID), "base_model_id": "three"}, status: 422, says: []string{"base_model_id"}},
		{name: "not an object", body: `[1,2]`, status: 422},
		{name: "malformed JSON", body: `{"model_name": "m",`, status: 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.client(t, testKey1)
			c.post("/api/v1/user/model", tc.body).wantError(t, tc.status, tc.says...)
		})
	}
	if got := c1.models(); len(got) != 0 {
		t.Errorf("models got %d, want 0 after refused creates", len(got))
	}
}

// TestModelTraining drives one training with the FakeClock: pending →
// training → (graph building, progress rising) → ready with metrics,
// dataset_info and trained_at.
func TestModelTraining(t *testing.T) {
	const d = 10 * time.Second
	ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.TrainDuration = d }))
	c := ts.client(t, testKey1)
	ds := c.createDataset("handbook", fixtureFile(t, "employee-handbook.md"), fixtureFile(t, "warranty-policy.pdf"))
	m := c.createModel(ds.ID, "trainee")

	type want struct {
		status, graph string
		min, max      int
		ready         bool
	}
	steps := []struct {
		at   time.Duration
		want want
	}{
		{0, want{"pending", "pending", 0, 0, false}},
		{d / 10, want{"training", "pending", 0, 0, false}},
		{d / 2, want{"training", "building", 0, 0, false}},
		{d/2 + d/5, want{"training", "building", 1, 99, false}},
		{d - time.Second, want{"training", "building", 1, 99, false}},
		{d - time.Millisecond, want{"training", "building", 90, 99, false}},
		{d, want{"ready", "ready", 100, 100, true}},
		{2 * d, want{"ready", "ready", 100, 100, true}},
	}
	elapsed, last := time.Duration(0), -1
	for _, st := range steps {
		ts.clock.Advance(st.at - elapsed)
		elapsed = st.at
		got := c.model(m.ID)
		p := 0
		if got.GraphBuildProgress != nil {
			p = *got.GraphBuildProgress
		}
		if str(got.Status) != st.want.status || str(got.GraphStatus) != st.want.graph || p < st.want.min || p > st.want.max {
			t.Errorf("at %v: status, graph_status, progress got %s, %s, %d, want %s, %s, %d..%d",
				st.at, str(got.Status), str(got.GraphStatus), p, st.want.status, st.want.graph, st.want.min, st.want.max)
		}
		if p < last {
			t.Errorf("at %v: graph_build_progress went down from %d to %d", st.at, last, p)
		}
		last = p
		ready := got.Metrics != nil && got.DatasetInfo != nil && got.TrainedAt != nil && got.FineTuningStatus != nil && *got.FineTuningStatus
		if ready != st.want.ready {
			t.Errorf("at %v: metrics, dataset_info, trained_at, fine_tuning_status set got %v, want %v (%+v)", st.at, ready, st.want.ready, got)
		}
		if !st.want.ready && (got.Metrics != nil || got.DatasetInfo != nil || got.TrainedAt != nil) {
			t.Errorf("at %v: training model shows metrics=%v dataset_info=%v trained_at=%v, want all null", st.at, got.Metrics, got.DatasetInfo, got.TrainedAt)
		}
		if st.want.ready {
			if want := testEpoch.Add(d); !got.TrainedAt.Equal(want) {
				t.Errorf("trained_at got %v, want %v", got.TrainedAt, want)
			}
			di := got.DatasetInfo
			if di.Name != ds.Name || di.Size != ds.Size || di.Samples != ds.Rows || di.DataType != ds.Type {
				t.Errorf("dataset_info got %+v, want name %q size %d samples %d type %s", di, ds.Name, ds.Size, ds.Rows, ds.Type)
			}
		}
	}
	// The list shows the same state as the get.
	for _, lm := range c.models() {
		if lm.ID == m.ID && str(lm.Status) != "ready" {
			t.Errorf("listed status got %s, want ready", str(lm.Status))
		}
	}
}

func TestModelTrainsAtOnceWithZeroDuration(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("instant", fixtureFile(t, "pricing.json"))
	if m.GraphBuildProgress == nil || *m.GraphBuildProgress != 100 || m.Metrics == nil {
		t.Errorf("model got progress %v metrics %v, want 100 and metrics", m.GraphBuildProgress, m.Metrics)
	}
}

func TestModelListAndDelete(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	before := c.models()
	if len(before) == 0 {
		t.Fatal("fixtures preload no model")
	}
	m := c.readyModel("to delete", fixtureFile(t, "release-notes.txt"))
	conv := c.createConversation(m.ID, "bound to the model")
	list := c.models()
	if got, want := len(list), len(before)+1; got != want {
		t.Fatalf("models got %d, want %d", got, want)
	}
	if list[len(list)-1].ID != m.ID {
		t.Errorf("models are not oldest first: last got %d, want %d", list[len(list)-1].ID, m.ID)
	}

	var del store.DeleteResult
	c.do(http.MethodDelete, fmt.Sprintf("/api/v1/user/model/%d", m.ID)).want(t, 200).data(t, &del)
	if del.ID != fmt.Sprint(m.ID) || del.Message == "" {
		t.Errorf("delete got %+v, want id %d and a message", del, m.ID)
	}
	c.get(fmt.Sprintf("/api/v1/user/model/%d", m.ID)).wantError(t, 404, fmt.Sprint(m.ID))
	c.do(http.MethodDelete, fmt.Sprintf("/api/v1/user/model/%d", m.ID)).wantError(t, 404)
	if ids(c.models(), modelID)[m.ID] {
		t.Errorf("deleted model %d still listed", m.ID)
	}
	// Its conversations went with it.
	c.get("/api/v1/user/conversations/"+conv.ID+"/messages").wantError(t, 404)
	c.post("/api/v1/user/inference", map[string]any{"query": "anything", "model_id": m.ID}).wantError(t, 404)
}
