package store

import (
	"slices"
	"strings"
	"time"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/retrieval"
)

// Upload is what one multipart request brought: the files that were read
// (text already extracted) and the names of those that could not be (D-16).
type Upload struct {
	Docs   []retrieval.Doc
	Failed []string
	// Reasons[i] says why Failed[i] could not be read (D-27).
	Reasons []string
}

// FileFailure is a file part that was refused, and why (D-27).
type FileFailure struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

func (u Upload) failures() []FileFailure {
	out := make([]FileFailure, 0, len(u.Failed))
	for i, name := range u.Failed {
		f := FileFailure{Name: name}
		if i < len(u.Reasons) {
			f.Reason = u.Reasons[i]
		}
		out = append(out, f)
	}
	return out
}

// DatasetInput is a dataset create request, already parsed.
type DatasetInput struct {
	Name        string
	Description string
	Tags        []string
	URLs        []string
	Upload
}

type dataset struct {
	id          int64
	name        string
	description string
	tags, urls  []string
	files       []FileView
	// texts[i] is the extracted text of files[i], kept so that a snapshot
	// can rebuild the index and samples (an index cannot be read back).
	texts []string
	index *retrieval.Index
	// samples are sentences kept for generating evaluation questions.
	samples    []string
	createdAt  time.Time
	updatedAt  time.Time
	uploadedAt time.Time
	deleted    bool
}

// FileView is one file of a dataset.
type FileView struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Type string `json:"type"`
	Rows int64  `json:"rows"`
}

// DatasetView is a dataset as the API shows it (seed §2.6, D-08).
type DatasetView struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	Size        int64      `json:"size"`
	Description string     `json:"description"`
	Type        string     `json:"type"`
	Rows        int64      `json:"rows"`
	UploadedAt  time.Time  `json:"uploaded_at"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	FileCount   int        `json:"file_count"`
	Tags        []string   `json:"tags"`
	URLs        []string   `json:"urls"`
	Files       []FileView `json:"files"`
}

// CreatedDataset is the answer to a dataset create: the dataset and the
// names of the file parts it refused (D-27), so no file part vanishes.
type CreatedDataset struct {
	DatasetView
	FailedFiles []string      `json:"failed_files"`
	Failures    []FileFailure `json:"failures"`
}

// UploadResult is the answer to adding files (seed §2.7).
type UploadResult struct {
	Success       bool     `json:"success"`
	DatasetID     int64    `json:"dataset_id"`
	FailedFiles   []string `json:"failed_files"`
	FilesUploaded int      `json:"files_uploaded"`
	FilesFailed   int      `json:"files_failed"`
	TotalSize     int64    `json:"total_size"`
	// Failures says why each failed file was refused (D-27).
	Failures []FileFailure `json:"failures"`
}

// DeleteResult is the success body of a delete (D-02).
type DeleteResult struct {
	Message   string `json:"message"`
	ID        string `json:"id"`
	Permanent *bool  `json:"permanent,omitempty"`
}

// maxSamples bounds the sentences a dataset keeps for evaluation questions.
const maxSamples = 64

func (d *dataset) add(docs []retrieval.Doc, at time.Time) {
	for _, doc := range docs {
		d.files = append(d.files, FileView{Name: doc.Name, Size: doc.Size, Type: doc.Kind, Rows: int64(doc.Rows)})
		d.texts = append(d.texts, doc.Text)
		d.index.Add(doc.Name, doc.Text)
		for _, s := range firstSentences(doc.Text, 8) {
			if len(d.samples) < maxSamples {
				d.samples = append(d.samples, s)
			}
		}
	}
	d.updatedAt, d.uploadedAt = at, at
}

func (d *dataset) view() DatasetView {
	v := DatasetView{
		ID: d.id, Name: d.name, Description: d.description, Type: d.kind(),
		UploadedAt: d.uploadedAt, CreatedAt: d.createdAt, UpdatedAt: d.updatedAt,
		FileCount: len(d.files), Tags: nonNil(d.tags), URLs: nonNil(d.urls), Files: slices.Clone(d.files),
	}
	if v.Files == nil {
		v.Files = []FileView{}
	}
	v.Size, v.Rows = d.totals()
	return v
}

// totals are the bytes and rows of the dataset's files.
func (d *dataset) totals() (size, rows int64) {
	for _, f := range d.files {
		size += f.Size
		rows += f.Rows
	}
	return size, rows
}

// kind is the dataset type (D-11), derived from what was uploaded: the one
// type of every file (and "web" for URLs), "mixed" when they differ,
// "empty" when there is nothing.
func (d *dataset) kind() string {
	kind, seen := "", false
	same := func(k string) bool {
		if !seen {
			kind, seen = k, true
		}
		return k == kind
	}
	for _, f := range d.files {
		if !same(f.Type) {
			return "mixed"
		}
	}
	if len(d.urls) > 0 && !same("web") {
		return "mixed"
	}
	if !seen {
		return "empty"
	}
	return kind
}

// CreateDataset adds a dataset. At least one file must have been read or one
// URL given (D-08, D-16); the files that could not be read are named in the
// answer (D-27).
func (a *Account) CreateDataset(in DatasetInput) (CreatedDataset, error) {
	return a.createDataset(in, 0)
}

// createDataset creates a dataset with the given id, or the next one when id
// is 0 (Preload gives fixture ids it has reserved).
func (a *Account) createDataset(in DatasetInput, id int64) (CreatedDataset, error) {
	if len(in.Docs) == 0 && len(in.URLs) == 0 {
		if len(in.Failed) > 0 {
			return CreatedDataset{}, apierr.New(apierr.Invalid, "files: none of the files could be read (%s)", strings.Join(in.Failed, ", "))
		}
		return CreatedDataset{}, apierr.New(apierr.Invalid, "files: at least one file or URL is required")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if id == 0 {
		id = a.nextID()
	}
	d := &dataset{
		id: id, name: in.Name, description: in.Description,
		tags: in.Tags, urls: in.URLs, index: retrieval.NewIndex(), createdAt: now,
	}
	d.add(in.Docs, now)
	a.datasets[d.id] = d
	a.commit(change{Dataset: ptr(d.snap(0))})
	return CreatedDataset{DatasetView: d.view(), FailedFiles: nonNil(in.Failed), Failures: in.failures()}, nil
}

// AddFiles adds read files to a live dataset and accounts for the failed ones.
func (a *Account) AddFiles(id string, up Upload) (UploadResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, err := a.liveDataset(id)
	if err != nil {
		return UploadResult{}, err
	}
	from := len(d.files)
	d.add(up.Docs, a.now())
	a.commit(change{Files: &filesAdded{Dataset: d.id, From: from, Files: d.snap(from).Files, UploadedAt: d.uploadedAt, UpdatedAt: d.updatedAt}})
	res := UploadResult{
		Success: len(up.Docs) > 0, DatasetID: d.id, FailedFiles: nonNil(up.Failed),
		FilesUploaded: len(up.Docs), FilesFailed: len(up.Failed), Failures: up.failures(),
	}
	for _, doc := range up.Docs {
		res.TotalSize += doc.Size
	}
	return res, nil
}

// Dataset returns a live (not deleted) dataset.
func (a *Account) Dataset(id string) (DatasetView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, err := a.liveDataset(id)
	if err != nil {
		return DatasetView{}, err
	}
	return d.view(), nil
}

// Datasets lists the live datasets, oldest first.
func (a *Account) Datasets() []DatasetView {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []DatasetView{}
	for _, id := range sortedKeys(a.datasets) {
		if d := a.datasets[id]; !d.deleted {
			out = append(out, d.view())
		}
	}
	return out
}

// DeleteDataset soft-deletes a dataset, or erases it when permanent (D-07).
// Models built from a soft-deleted dataset keep answering from it.
func (a *Account) DeleteDataset(id string, permanent bool) (DeleteResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, err := a.liveDataset(id)
	if err != nil {
		return DeleteResult{}, err
	}
	if permanent {
		delete(a.datasets, d.id)
		a.commit(change{Removed: &removed{Datasets: []int64{d.id}}})
	} else {
		d.deleted = true
		d.updatedAt = a.now()
		a.commit(change{Dataset: ptr(d.snap(len(d.files)))}) // its fields; the files stay
	}
	return DeleteResult{Message: "Dataset deleted", ID: idString(d.id), Permanent: &permanent}, nil
}

func (a *Account) liveDataset(id string) (*dataset, error) {
	n, ok := parseID(id)
	if d := a.datasets[n]; ok && d != nil && !d.deleted {
		return d, nil
	}
	return nil, apierr.New(apierr.NotFound, "dataset %s not found", quoteID(id))
}

// firstSentences returns up to n sentences of text worth asking about.
func firstSentences(text string, n int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, s := range strings.SplitAfter(line, ". ") {
			s = strings.TrimSpace(s)
			if len(strings.Fields(s)) >= 5 && len(s) <= 400 {
				out = append(out, s)
				if len(out) == n {
					return out
				}
			}
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clone(s)
}

func sortedKeys[K int64 | string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// quoteID bounds an id echoed in a message: it came from the client.
func quoteID(id string) string {
	if len(id) > 64 {
		id = id[:64] + "…"
	}
	return id
}
