package proxycmd

import (
	"net/http/httptest"
	"testing"
	"time"

	"contractkit/proxy/internal/proxytest"
)

// The mock, its key and the console buffer come from proxytest.
const testKey = proxytest.Key

type syncBuffer = proxytest.Buffer

func newMock(t testing.TB, mutant string, tokenInterval time.Duration) *httptest.Server {
	return proxytest.Mock(t, mutant, tokenInterval)
}
