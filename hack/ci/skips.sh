#!/usr/bin/env bash
# Reads `go test -v` output (files or stdin) and fails when any test was skipped, printing
# each skipped test with the lines it logged (its skip reason). A skip in CI hides a missing
# install step or a missing service, so CI treats it as a failure.
set -euo pipefail

awk '
  # Lines a test logs are indented under the test that last ran or continued.
  /^=== (RUN|CONT|PAUSE|NAME)[ \t]/ { current = $3; next }
  /^[ \t]+--- SKIP: / || /^--- SKIP: / {
    name = $3
    skipped++
    printf "SKIPPED %s\n", name
    if (name in logged) printf "%s", logged[name]
    next
  }
  /^[ \t]+--- (PASS|FAIL): / || /^--- (PASS|FAIL): / { delete logged[$3]; next }
  /^    / && current != "" { logged[current] = logged[current] $0 "\n"; next }
  END {
    if (skipped > 0) { printf "%d test(s) skipped: CI fails on a skip (install or start what they need)\n", skipped; exit 1 }
    print "no test skipped"
  }
' "$@"
