package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"

	"contractkit/spec"
)

// maxParts bounds the parts read from one recorded multipart body: the
// contract's bound (D-15, x-request-limits), which a server that held to
// it never passed.
var maxParts = spec.RequestLimits().MultipartParts

// form is a dataset request's multipart body: its fields and file parts.
type form struct {
	fields url.Values
	files  []upload
}

// readForm reads a multipart request body (seed §4.3). The body was bounded
// by the proxy; the parts are bounded here.
func readForm(x Exchange) (form, error) {
	mt, params, err := mime.ParseMediaType(x.RequestHeader.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return form{}, errors.New("the request is not multipart/form-data")
	}
	f := form{fields: url.Values{}}
	mr := multipart.NewReader(bytes.NewReader(x.RequestBody), params["boundary"])
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return form{}, errors.New("the multipart body is unreadable")
		}
		if n == maxParts {
			return form{}, errors.New("the request has too many parts")
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return form{}, errors.New("the multipart body is unreadable")
		}
		if p.FileName() != "" {
			f.files = append(f.files, upload{name: p.FileName(), data: data})
		} else {
			f.fields.Add(p.FormName(), string(data))
		}
	}
}

// accepted drops the files the answer names as refused (D-16, D-27), one
// per time it names them.
func accepted(files []upload, failed []string) []upload {
	out := slices.Clone(files)
	for _, name := range failed {
		if i := slices.IndexFunc(out, func(u upload) bool { return u.name == name }); i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

// createDataset: the create of a dataset (seed §4.3) answers the new
// dataset; what the form said stands unless the answer says otherwise. Its
// files join it by the operation's x-effect "files" (routes.go).
func createDataset(a *account, x Exchange, in request) string {
	f, err := in.form, in.formErr
	if err != nil {
		return "dataset create: " + err.Error()
	}
	var w datasetWire
	if json.Unmarshal(payload(x.ResponseBody), &w) != nil || !w.ID.ok {
		return "dataset create: the answer holds no dataset id"
	}
	d := a.dataset(w.ID.v)
	d.name = f.fields.Get("dataset_name")
	d.description = f.fields.Get("description")
	tags, urls := formSeparators()
	d.tags = splitAll(f.fields["tags"], tags)
	d.urls = splitAll(f.fields["urls"], urls)
	d.merge(w)
	return ""
}

func listDatasets(a *account, x Exchange, _ request) string {
	var ws []datasetWire
	if json.Unmarshal(payload(x.ResponseBody), &ws) != nil {
		return "dataset list: the answer is not a list"
	}
	// The list is whole (seed §4.3 has no paging): what it lacks is gone.
	listed := map[int64]bool{}
	for _, w := range ws {
		if w.ID.ok {
			a.dataset(w.ID.v).merge(w)
			listed[w.ID.v] = true
		}
	}
	for id := range a.datasets {
		if !listed[id] {
			delete(a.datasets, id)
		}
	}
	return ""
}

func readDataset(a *account, x Exchange, in request) string {
	id := in.id
	n, ok := pathID(id)
	if !ok {
		return "dataset read: the id is not a number"
	}
	if x.Status == http.StatusNotFound {
		delete(a.datasets, n)
		return ""
	}
	var w datasetWire
	if json.Unmarshal(payload(x.ResponseBody), &w) != nil {
		return "dataset read: the answer is not a dataset"
	}
	a.dataset(n).merge(w)
	return ""
}

func deleteDataset(a *account, _ Exchange, in request) string {
	id := in.id
	n, ok := pathID(id)
	if !ok {
		return "dataset delete: the id is not a number"
	}
	delete(a.datasets, n)
	return ""
}

// dataset returns the record of id, new if need be.
func (a *account) dataset(id int64) *dataset {
	d := a.datasets[id]
	if d == nil {
		d = &dataset{id: id}
		a.datasets[id] = d
	}
	return d
}

// merge takes what an answer says about the dataset.
func (d *dataset) merge(w datasetWire) {
	w.Name.to(&d.name)
	w.Description.to(&d.description)
	if w.Tags.ok {
		d.tags = w.Tags.v
	}
	if w.URLs.ok {
		d.urls = w.URLs.v
	}
	if w.Files != nil {
		d.shown = []string{}
		for _, f := range *w.Files {
			d.shown = append(d.shown, f.Name)
		}
	}
}

// formSeparators are the separators of the dataset form's tags and urls,
// read once from the contract's x-split marks (D-08, D-28), so the recorder
// splits the strings as the mock does.
var formSeparators = sync.OnceValues(func() (tags, urls string) {
	sep := func(field string) string {
		create, ok := spec.Strict().OperationAt(spec.RoleCreate, "dataset_id")
		if !ok {
			panic("recording: the contract creates no dataset")
		}
		s, err := spec.Strict().RequestField(create.ID, "multipart/form-data", field)
		if err != nil {
			panic("recording: " + err.Error())
		}
		sp, ok, err := spec.SplitOf(s)
		if !ok || err != nil {
			panic(fmt.Sprintf("recording: the contract's %s field has no usable x-split mark (%v)", field, err))
		}
		return sp.Separators
	}
	return sep("tags"), sep("urls")
})

func splitAll(values []string, seps string) []string {
	var out []string
	for _, v := range values {
		out = append(out, splitList(v, seps)...)
	}
	return out
}

// pathID reads an integer id of a path (D-20).
func pathID(s string) (int64, bool) {
	if p, err := url.PathUnescape(s); err == nil {
		s = p
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}
