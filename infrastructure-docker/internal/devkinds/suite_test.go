package devkinds_test

import (
	"os"
	"testing"

	"capstan.dev/contracts/envtest"
	"capstan.dev/infrastructure-docker/internal/apitest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(apitest.Run(m, &env)) }
