package recording

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// account is what the server said about one key's data.
type account struct {
	n             int // 1 for the first key seen, 2 for the next...
	datasets      map[int64]*dataset
	models        map[int64]*model
	conversations map[string]*conversation
	evaluations   map[int64]*evaluation
	// convSeq orders conversations as they were first seen (their ids are
	// UUIDs, with no order of their own).
	convSeq int
}

func newAccount(n int) *account {
	return &account{
		n: n, datasets: map[int64]*dataset{}, models: map[int64]*model{},
		conversations: map[string]*conversation{}, evaluations: map[int64]*evaluation{},
	}
}

// dataset is a dataset's fields and the files whose bytes passed upstream.
type dataset struct {
	id                int64
	name, description string
	tags, urls        []string
	files             []upload
	// shown are the file names the server listed for the dataset (D-08's
	// `files`), when it lists them: a listed file whose bytes never passed
	// is reported as missing.
	shown []string
}

// upload is one file part a server accepted.
type upload struct {
	name string // as uploaded; only ever shown, never a path
	data []byte
}

type model struct {
	id                                         int64
	name, description, category, baseModelName string
	fineTune, status                           string
	datasetID                                  int64
}

type conversation struct {
	id, title string
	modelID   int64
	messages  []message
	seq       int
	// createdAt is the server's created_at, when an answer gave it: the
	// set is written oldest first, which the mock lists newest first again.
	createdAt time.Time
}

type message struct{ role, content string }

type evaluation struct {
	id                                int64
	name, typ, benchmark, description string
	status                            string
	modelID                           int64
	questionCount                     int
}

// ---- what the answers hold, leniently: a field may be missing ----

// envelope is a success answer (seed envelope rule 1). Some clients of the
// model create read the record without the wrapper (seed §4.1), so a body
// without `data` is read as the record itself.
func payload(body []byte) json.RawMessage {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &env) == nil && len(env.Data) > 0 && !bytes.Equal(env.Data, []byte("null")) {
		return env.Data
	}
	return body
}

// flexID is an integer id sent as a number or as a numeric string.
type flexID struct {
	v  int64
	ok bool
}

func (f *flexID) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
		*f = flexID{v: v, ok: true}
	}
	return nil // an id of another form is simply not known
}

// optString is a string field that may be absent or null.
type optString struct {
	v  string
	ok bool
}

func (o *optString) UnmarshalJSON(b []byte) error {
	var s *string
	if json.Unmarshal(b, &s) == nil && s != nil {
		*o = optString{v: *s, ok: true}
	}
	return nil
}

func (o optString) to(dst *string) {
	if o.ok {
		*dst = o.v
	}
}

// list is a field D-08 gives as an array that a server may send as the
// string it was given (comma separated).
type list struct {
	v  []string
	ok bool
}

func (l *list) UnmarshalJSON(b []byte) error {
	var arr []string
	if json.Unmarshal(b, &arr) == nil && arr != nil {
		*l = list{v: arr, ok: true}
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		*l = list{v: splitList(s, ",\n"), ok: true}
	}
	return nil
}

type datasetWire struct {
	ID          flexID    `json:"id"`
	Name        optString `json:"name"`
	Description optString `json:"description"`
	Tags        list      `json:"tags"`
	URLs        list      `json:"urls"`
	Files       *[]struct {
		Name string `json:"name"`
	} `json:"files"`
	FailedFiles []string `json:"failed_files"`
}

type modelWire struct {
	ID            flexID    `json:"id"`
	Name          optString `json:"name"`
	Description   optString `json:"description"`
	Category      optString `json:"category"`
	BaseModelName optString `json:"base_model_name"`
	FineTune      optString `json:"fine_tune"`
	Status        optString `json:"status"`
	DatasetID     flexID    `json:"dataset_id"`
}

type conversationWire struct {
	ID        optString `json:"id"`
	ModelID   flexID    `json:"model_id"`
	Title     optString `json:"title"`
	CreatedAt optString `json:"created_at"`
}

type messageWire struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type evaluationWire struct {
	ID            flexID    `json:"id"`
	Name          optString `json:"name"`
	Type          optString `json:"type"`
	BenchmarkType optString `json:"benchmark_type"`
	Description   optString `json:"description"`
	Status        optString `json:"status"`
	ModelID       flexID    `json:"model_id"`
	QuestionCount *int      `json:"question_count"`
}

// splitList splits a form value the way D-08 reads several tags or URLs.
func splitList(s, seps string) []string {
	var out []string
	for _, item := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
