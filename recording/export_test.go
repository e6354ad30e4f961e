package recording

// SetMaxFileBytes lowers the Recorder's bound on kept upload bytes, so a
// test can reach it.
func SetMaxFileBytes(r *Recorder, n int64) { r.maxFileBytes = n }
