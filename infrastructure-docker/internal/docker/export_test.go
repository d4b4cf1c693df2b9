package docker

import (
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// EngineClient and PlaneFilter let the external tests look at the engine directly.
func EngineClient(r *Runtime) *client.Client { return r.cli }

func PlaneFilter(r *Runtime) filters.Args { return r.filter(nil) }
