package retrieval

import "contractkit/internal/fakeseed"

// testWords are the mock's words (package store draws them the same way).
func testWords(seed uint64) Words { return fakeseed.Faker(seed) }
