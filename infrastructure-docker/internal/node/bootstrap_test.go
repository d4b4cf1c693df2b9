package node

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunnerScript_QuotesArgumentsAndStopsAtTheFirstFailure(t *testing.T) {
	got := runnerScript([][]string{{"echo", "it's"}, {"/bin/sh", "-c", "a && b"}})
	require.Contains(t, got, `step 1 'echo' 'it'\''s'`+"\n")
	require.Contains(t, got, `step 2 '/bin/sh' '-c' 'a && b'`+"\n")
	require.True(t, strings.HasSuffix(got, `echo "0 0" > "$dir/exit"`+"\n"), got)
}
