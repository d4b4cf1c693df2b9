#!/usr/bin/env bash
# Reads `go test -v` output (files or stdin) and prints, last, each failed test with the
# lines it logged, then the failing packages and any panic or timeout. CI shows the tail of
# its output; a failure buried under later passing packages must still be the last thing
# read.
set -uo pipefail

awk '
  /^=== (RUN|CONT|PAUSE|NAME)[ \t]/ { current = $3; next }
  /^[ \t]*--- FAIL: / {
    name = $3
    failed++
    out = out sprintf("FAILED %s\n", name)
    if (name in logged) {
      # The last 40 lines the test logged: its assertion messages come last.
      n = split(logged[name], l, "\n"); from = n > 41 ? n - 41 : 1
      for (i = from; i <= n; i++) if (l[i] != "") out = out l[i] "\n"
    }
    next
  }
  /^[ \t]*--- (PASS|SKIP): / { delete logged[$3]; next }
  /^    / && current != "" { logged[current] = logged[current] $0 "\n"; next }
  /^FAIL[ \t]/ || /^panic:/ || /test timed out after/ { tail = tail $0 "\n" }
  # Build and vet failures: the package line, then the compiler or vet message.
  /^# / || /^vet: / || /^[^ \t].*\.go:[0-9]+:[0-9]+: / { tail = tail $0 "\n" }
  END {
    if (failed == 0 && tail == "") { print "no test failed"; exit 0 }
    printf "==== failures\n%s%s", out, tail
  }
' "$@"
