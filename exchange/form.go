package exchange

// Form is a multipart/form-data body: fields in order, then files.
type Form struct {
	Fields []FormField
	Files  []FormFile
}

// FormField is one text part.
type FormField struct{ Name, Value string }

// FormFile is one file part. Source, when set, is the file's path relative
// to the repository root, used to render a curl command that re-reads it.
type FormFile struct {
	Field, Name string
	Content     []byte
	Source      string
}
