package store

import (
	"contractkit/internal/fakeseed"
	"contractkit/mockserver/retrieval"
)

// words draws the words of the mock's generated answers from gofakeit,
// seeded (retrieval.Options.Words): the answer package links no generator,
// so the tools that only read files with it stay without one.
func words(seed uint64) retrieval.Words { return fakeseed.Faker(seed) }
