// Command quickstart is the last step of `make run`: it applies the quickstart manifest to the
// management cluster, prints a line per change while the providers provision it (the manifest's
// ClusterResourceSet delivers the CNI, as for a user who applies it with kubectl), waits until
// every node is Ready and writes the workload kubeconfig. Running it again changes nothing and returns as
// soon as the nodes are Ready.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/test/framework"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "Kubeconfig of the management cluster.")
	manifest := flag.String("manifest", "examples/quickstart.yaml", "Cluster API objects to apply.")
	cni := flag.String("cni", "", "CNI manifest applied to the workload cluster once its API answers (empty: none; examples/quickstart.yaml delivers its CNI by a ClusterResourceSet).")
	out := flag.String("workload-kubeconfig", ".capstan/quickstart.kubeconfig", "Where to write the workload cluster's kubeconfig.")
	timeout := flag.Duration("timeout", 20*time.Minute, "How long to wait for every node to be Ready.")
	flag.Parse()
	if *kubeconfig == "" {
		return fmt.Errorf("no management cluster: pass --kubeconfig or set KUBECONFIG (make mgmt-up writes .capstan/mgmt/kubeconfig)")
	}

	objs, err := readManifest(*manifest)
	if err != nil {
		return err
	}
	key, err := clusterOf(objs)
	if err != nil {
		return fmt.Errorf("%s: %w", *manifest, err)
	}
	var cniObjs = []*framework.Object{}
	if *cni != "" {
		if cniObjs, err = readManifest(*cni); err != nil {
			return err
		}
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("reading %s: %w", *kubeconfig, err)
	}
	mgmt, err := client.New(cfg, client.Options{Scheme: framework.Scheme()})
	if err != nil {
		return fmt.Errorf("connecting to the management cluster: %w", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	start := time.Now()
	progress := &framework.Progress{Out: os.Stdout}
	if err := framework.Apply(ctx, mgmt, objs); err != nil {
		return err
	}
	progress.Event(fmt.Sprintf("applied %d objects of %s (server-side apply: a second run changes nothing)", len(objs), *manifest))
	data, err := framework.WaitForNodesReady(ctx, framework.WaitInput{Mgmt: mgmt, Cluster: key, CNI: cniObjs, Progress: progress})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(*out, data, 0o600); err != nil {
		return fmt.Errorf("writing the workload kubeconfig: %w", err)
	}
	progress.Event(fmt.Sprintf("every node of cluster %s is Ready (%s after apply); workload kubeconfig: %s", key, time.Since(start).Round(time.Second), *out))
	return nil
}

func readManifest(path string) ([]*framework.Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	objs, err := framework.ParseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return objs, nil
}

func clusterOf(objs []*framework.Object) (client.ObjectKey, error) {
	for _, o := range objs {
		if o.GetKind() == "Cluster" && o.GroupVersionKind().Group == clusterv1.GroupVersion.Group {
			return client.ObjectKeyFromObject(o), nil
		}
	}
	return client.ObjectKey{}, fmt.Errorf("no Cluster object")
}
