package machine

import (
	"testing"

	"example.test/boot/token"
)

func TestX(t *testing.T) { _ = token.Token{} }
