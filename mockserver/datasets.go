package mockserver

import (
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/retrieval"
	"contractkit/mockserver/store"
	"contractkit/spec"

	"contractkit/internal/textcut"
)

// datasetRoutes serves datasets and their file uploads (API reference v1,
// §4.3). The two multipart operations read their body as a stream (readForm).
func (s *Server) datasetRoutes() map[string]handler {
	return map[string]handler{
		spec.OpListDatasets:       func(c *call) (any, error) { return c.account.Datasets(), nil },
		spec.OpGetDataset:         func(c *call) (any, error) { return c.account.Dataset(c.params["dataset_id"]) },
		spec.OpCreateDataset:      s.createDataset,
		spec.OpUploadDatasetFiles: s.uploadDatasetFiles,
		spec.OpDeleteDataset:      deleteDataset,
	}
}

// The field bytes and the part count no schema keyword states are the
// contract's x-request-limits mark (D-15, read into bounds.limits), and a
// form field's characters and the file parts its schemas (bounds.go). Text
// kept for answering is
// budgeted per request so that a hundred large files cannot pin hundreds of
// MiB, and a file's name is cut to a label; neither refuses anything.
const (
	maxKeptTextBytes = 32 << 20
	maxFileNameRunes = 255
)

// form is a multipart request read as a stream: fields are bounded strings,
// file parts are extracted (text kept, bytes discarded) as they arrive.
type form struct {
	fields map[string][]string
	upload store.Upload
}

func (f *form) first(names ...string) (string, bool) {
	for _, n := range names {
		if v := f.fields[n]; len(v) > 0 {
			return v[0], true
		}
	}
	return "", false
}

func (s *Server) readForm(c *call) (*form, error) {
	mr, err := c.r.MultipartReader()
	if err != nil {
		return nil, apierr.New(apierr.BadRequest, "body is not a readable multipart/form-data body")
	}
	f := &form{fields: map[string][]string{}}
	files, budget := 0, int64(maxKeptTextBytes)
	// Parts the contract does not name are read past and reported (D-29).
	known, unknown, seen := formFields(c.op), &unknownFields{}, map[string]bool{}
	defer s.noteUnknown(c.w, unknown)
	for parts := 0; ; parts++ {
		p, err := mr.NextPart()
		if err == io.EOF { // only the final boundary; a wrapped EOF is a truncated body
			return f, nil
		}
		if err != nil {
			return nil, multipartError(err, s.maxUpload())
		}
		if parts >= s.bounds.limits.MultipartParts {
			return nil, apierr.New(apierr.TooLarge, "more than %d multipart parts", s.bounds.limits.MultipartParts)
		}
		name := formName(c.op.OperationID, p.FormName()) // D-21
		if known[name] == nil {
			if key := textcut.Shorten(name, maxUnknownLength); !seen[key] {
				seen[key] = true
				unknown.add(key)
			}
			_, _ = io.Copy(io.Discard, p)
			continue
		}
		if p.FileName() == "" && name != "files" {
			v, err := readField(p, name, s.bounds.limits.FormFieldBytes, s.maxUpload())
			if err != nil {
				return nil, err
			}
			f.fields[name] = append(f.fields[name], v)
			continue
		}
		if name != "files" {
			_, _ = io.Copy(io.Discard, p)
			continue
		}
		if files++; files > s.bounds.files[c.op.OperationID].Max {
			return nil, apierr.New(apierr.TooLarge, "files: at most %d files per request", s.bounds.files[c.op.OperationID].Max)
		}
		label := fileLabel(p.FileName(), files)
		doc, err := retrieval.Extract(label, p, retrieval.Limits{MaxFileBytes: s.maxUpload(), MaxTextBytes: max(budget, 1), MaxDuration: s.cfg.ExtractBudget})
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return nil, multipartError(err, s.maxUpload())
		case err != nil, doc.Size == 0: // an empty file is a failed file (D-16)
			f.upload.Failed = append(f.upload.Failed, label)
			f.upload.Reasons = append(f.upload.Reasons, failReason(err))
		default:
			budget -= int64(len(doc.Text))
			f.upload.Docs = append(f.upload.Docs, doc)
		}
	}
}

// failReason says, in a few words, why a file was refused (D-27). It never
// quotes the parser's detail, which may echo the file's bytes.
func failReason(err error) string {
	switch {
	case err == nil:
		return "empty file"
	case errors.Is(err, retrieval.ErrTimeBudget):
		return "took longer than its time budget to read"
	case errors.Is(err, retrieval.ErrTooLarge):
		return "too large"
	case errors.Is(err, retrieval.ErrUnsupported):
		return "unsupported content (binary, not UTF-8, or password-protected)"
	case errors.Is(err, retrieval.ErrMalformed):
		return "malformed: does not parse as its type"
	}
	return "could not be read"
}

func multipartError(err error, limit int64) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		if limit%(1<<20) == 0 {
			return apierr.New(apierr.TooLarge, "request body exceeds %d MiB", limit>>20)
		}
		return apierr.New(apierr.TooLarge, "request body exceeds %d bytes", limit)
	}
	return apierr.New(apierr.BadRequest, "body is not a readable multipart/form-data body")
}

// readField reads a text part of at most max bytes; limit is the body's.
func readField(p *multipart.Part, name string, max, limit int64) (string, error) {
	b, err := io.ReadAll(io.LimitReader(p, max+1))
	if err != nil {
		return "", multipartError(err, limit)
	}
	if int64(len(b)) > max {
		return "", apierr.New(apierr.Invalid, "%s: at most %d bytes", textcut.Shorten(name, 40), max)
	}
	if !utf8.Valid(b) {
		return "", apierr.New(apierr.Invalid, "%s: must be UTF-8 text", textcut.Shorten(name, 40))
	}
	return string(b), nil
}

// fileLabel is the name a file is reported under: the base of the client's
// file name, bounded. It is a label only, never a path on this machine.
func fileLabel(name string, n int) string {
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	if name == "." || name == "/" || name == "" {
		name = "file-" + strconv.Itoa(n)
	}
	if r := []rune(name); len(r) > maxFileNameRunes {
		name = string(r[:maxFileNameRunes])
	}
	return name
}

func (s *Server) createDataset(c *call) (any, error) {
	f, err := s.readForm(c)
	if err != nil {
		return nil, err
	}
	name, _ := f.first("dataset_name")
	name = strings.TrimSpace(name)
	if err := checkLength("dataset_name", name, s.bounds.datasetName); err != nil {
		return nil, err
	}
	desc, _ := f.first("description")
	if err := checkLength("description", desc, s.bounds.datasetDescription); err != nil {
		return nil, err
	}
	urls, err := splitURLs(f.fields["urls"], s.bounds.urls)
	if err != nil {
		return nil, err
	}
	tags := splitList(f.fields["tags"], s.bounds.tags.Separators)
	if len(tags) > s.bounds.tags.MaxItems {
		return nil, apierr.New(apierr.Invalid, "tags: at most %d tags", s.bounds.tags.MaxItems)
	}
	return c.account.CreateDataset(store.DatasetInput{Name: name, Description: desc, Tags: tags, URLs: urls, Upload: f.upload})
}

func (s *Server) uploadDatasetFiles(c *call) (any, error) {
	f, err := s.readForm(c)
	if err != nil {
		return nil, err
	}
	id, ok := f.first("dataset_id")
	if !ok || strings.TrimSpace(id) == "" {
		return nil, apierr.New(apierr.Invalid, "dataset_id: required")
	}
	// The contract's minItems (one: "one or more file parts", seed §4.3).
	if least := max(1, s.bounds.files[c.op.OperationID].Min); len(f.upload.Docs)+len(f.upload.Failed) < least {
		return nil, apierr.New(apierr.Invalid, "files: at least %d file part(s) required", least)
	}
	return c.account.AddFiles(strings.TrimSpace(id), f.upload)
}

func deleteDataset(c *call) (any, error) {
	permanent, _ := strconv.ParseBool(c.r.URL.Query().Get("permanent"))
	return c.account.DeleteDataset(c.params["dataset_id"], permanent)
}

// checkLength applies a bound the contract states on a form field's
// characters.
func checkLength(field, v string, bound store.Length) error {
	n := utf8.RuneCountInString(v)
	switch {
	case n < bound.Min && bound.Min == 1:
		return apierr.New(apierr.Invalid, "%s: required", field)
	case n < bound.Min:
		return apierr.New(apierr.Invalid, "%s: at least %d characters", field, bound.Min)
	case n > bound.Max:
		return apierr.New(apierr.Invalid, "%s: at most %d characters (got %d)", field, bound.Max, n)
	}
	return nil
}

// splitList splits repeated fields on any of seps, dropping blanks (D-08).
func splitList(values []string, seps string) []string {
	var out []string
	for _, v := range values {
		for _, item := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// splitURLs splits the urls field as the contract's x-split mark says
// (D-08, D-28) and keeps only absolute http(s) URLs.
func splitURLs(values []string, split spec.Split) ([]string, error) {
	urls := splitList(values, split.Separators)
	if len(urls) > split.MaxItems {
		return nil, apierr.New(apierr.Invalid, "urls: at most %d URLs", split.MaxItems)
	}
	for _, u := range urls {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, apierr.New(apierr.Invalid, "urls: %q is not an absolute http(s) URL", textcut.Shorten(u, 80))
		}
	}
	return urls, nil
}
