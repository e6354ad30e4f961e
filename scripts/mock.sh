# Sourced by the scripts that need a running mock (selftest, browser tests).
#
#   start_mock LOG [FLAGS...]   start bin/mockserver on a port the system picks,
#                               set $base (its URL) and $mock (its pid)
#   stop_mock                   stop it and wait for it
#
# The mock binds 127.0.0.1:0 and prints the address it got, so no port is
# picked, closed and hoped free (a race when several runs share a machine).
start_mock() {
	local log=$1 addr=""
	shift
	bin/mockserver --addr 127.0.0.1:0 "$@" > "$log" 2>&1 &
	mock=$!
	for _ in $(seq 1 200); do
		addr=$(sed -n 's|^mockserver listening on \(http://[^ ]*\).*|\1|p' "$log" | head -n 1)
		[ -n "$addr" ] && break
		kill -0 "$mock" 2>/dev/null || break
		sleep 0.05
	done
	if [ -z "$addr" ] || ! curl -fsS "$addr/healthz" >/dev/null 2>&1; then
		echo "the mock did not start:" >&2
		cat "$log" >&2
		return 1
	fi
	base=$addr
}

stop_mock() {
	kill "$mock" 2>/dev/null || true
	wait "$mock" 2>/dev/null || true
}
