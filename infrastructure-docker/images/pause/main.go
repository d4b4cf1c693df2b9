// Command pause is the init process of every pod sandbox in a Capstan node image (tagged as the
// pause image kubeadm names, since no registry can be reached). It holds the pod's namespaces
// open by sleeping, reaps the zombies of processes that share its PID namespace, and exits 0 on
// SIGINT or SIGTERM. It must stay a single static binary: its image has nothing else in it.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		fmt.Println("pause (capstan)")
		return
	}
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "Warning: pause should be the first process")
	}
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			fmt.Fprintf(os.Stderr, "Shutting down, got signal: %v\n", s)
			os.Exit(0)
		}
		reap()
	}
}

// reap collects every exited child: one SIGCHLD can stand for several exits.
func reap() {
	for {
		pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
