#!/usr/bin/env bash
# The conformance step of the repository's GitHub Action (action.yml at the
# root): runs the suite with every report in one directory, appends the
# Markdown report (the verdict, each failed check with its curl lines) to
# the job's page, and exits with the suite's own status. action.yml passes
# its inputs as the environment below; action/action_test.go runs this
# script with a fake GITHUB_STEP_SUMMARY against the mock and a mutant.
#
#   CK_BIN       the conformance binary (required)
#   CK_REPORTS   the reports' directory (default conformance-reports)
#   CK_ARGS      more flags for the suite, split at white space
#   CONFORMANCE_BASE_URL, CONFORMANCE_API_KEY, CONFORMANCE_API_KEY_2 and any
#   other CONFORMANCE_* variable are read by the suite itself: the key is
#   never on a command line, and no report or log shows it.
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT  set by the runner (either may be unset)
set -u
bin=${CK_BIN:?CK_BIN: the conformance binary}
dir=${CK_REPORTS:-conformance-reports}
read -r -a extra <<< "${CK_ARGS:-}"
mkdir -p "$dir" || exit 2
# A page left by an earlier run is not this run's (the other reports stay:
# report.json may be what args' --compare reads, before the run rewrites it).
rm -f "$dir/summary.md"

"$bin" --junit "$dir/junit.xml" --json "$dir/report.json" --html "$dir/report.html" \
    --markdown "$dir/summary.md" ${extra[@]+"${extra[@]}"} 2>&1 | tee "$dir/conformance.log"
status=${PIPESTATUS[0]}

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    if [ -s "$dir/summary.md" ]; then
        cat "$dir/summary.md" >> "$GITHUB_STEP_SUMMARY"
    else
        # Exit 2 (usage) or 3 (unreachable): nothing ran, no report.
        {
            echo "## Conformance: no verdict (exit $status)"
            echo
            echo '```text'
            tail -n 20 "$dir/conformance.log"
            echo '```'
        } >> "$GITHUB_STEP_SUMMARY"
    fi
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "exit-code=$status"
        echo "report=$dir/report.json"
    } >> "$GITHUB_OUTPUT"
fi
exit "$status"
