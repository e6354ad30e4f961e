package judge

// plainMediaType reports whether v is a media type mime.ParseMediaType
// would return unchanged, with no parameters: a lower-case token, or two
// joined by one slash. The judge reads an answer's media type at its
// headers and at its end, and the proxy again to tell a stream; most
// answers carry such a value ("application/json"), and parsing it built a
// parameter map each time.
func plainMediaType(v string) bool {
	slash := -1
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '/':
			if slash >= 0 || i == 0 || i == len(v)-1 {
				return false
			}
			slash = i
		case !lowerTokenChar(c):
			return false
		}
	}
	return len(v) > 0
}

// lowerTokenChar: a character of an RFC 1521 token (what mime accepts in a
// media type) that strings.ToLower leaves as it is.
func lowerTokenChar(c byte) bool {
	if c <= ' ' || c >= 0x7f || 'A' <= c && c <= 'Z' {
		return false
	}
	switch c {
	case '(', ')', '<', '>', '@', ',', ';', ':', '\\', '"', '/', '[', ']', '?', '=':
		return false
	}
	return true
}
