package retrieval

import "github.com/brianvoe/gofakeit/v7"

// testWords are the mock's words (package store draws them the same way).
func testWords(seed uint64) Words { return gofakeit.New(seed) }
