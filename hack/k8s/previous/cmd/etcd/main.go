// Command etcd is etcd's own server entry point, built from the module proxy
// because no release download is reachable from the machines Capstan builds on.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
