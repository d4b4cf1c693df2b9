package components

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ServiceAccount returns the ServiceAccount the provider's manager Deployment runs as, read
// from its components so that it cannot drift from what the kustomize base says.
func (p Provider) ServiceAccount() (string, error) {
	objs, err := p.Objects()
	if err != nil {
		return "", err
	}
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		sa, _, err := unstructured.NestedString(o.Object, "spec", "template", "spec", "serviceAccountName")
		if err != nil || sa == "" {
			return "", fmt.Errorf("components of provider %s: Deployment %s names no serviceAccountName", p.Name, o.GetName())
		}
		return sa, nil
	}
	return "", fmt.Errorf("components of provider %s: no Deployment", p.Name)
}

// HostPorts are the diagnostics (metrics), probe and conversion webhook ports of the provider's manager when
// its pod shares its node's network: one set per provider, so the three managers fit on one node.
func (p Provider) HostPorts() (metrics, health, webhook int) {
	i := slices.IndexFunc(All, func(q Provider) bool { return q.Name == p.Name })
	return 8080 + i, 9440 + i, 9443 + i
}

// SetHostNetwork makes every manager Deployment in objs run in its node's network namespace
// (hostNetwork, with cluster DNS kept through ClusterFirstWithHostNet) on its provider's
// HostPorts, in place. A management cluster that is itself a Capstan docker cluster needs
// this: workload clusters' endpoints are 127.0.0.1:<port> on the host, and inside a node
// that address reaches the cluster's load balancer only from the node's own namespace, not
// from a pod's.
func SetHostNetwork(objs []*unstructured.Unstructured) error {
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		i := slices.IndexFunc(All, func(p Provider) bool { return p.Namespace == o.GetNamespace() })
		if i < 0 {
			return fmt.Errorf("Deployment %s/%s belongs to no known provider", o.GetNamespace(), o.GetName())
		}
		metrics, health, webhook := All[i].HostPorts()
		spec := []string{"spec", "template", "spec"}
		if err := unstructured.SetNestedField(o.Object, true, append(spec, "hostNetwork")...); err != nil {
			return fmt.Errorf("Deployment %s: %w", o.GetName(), err)
		}
		if err := unstructured.SetNestedField(o.Object, "ClusterFirstWithHostNet", append(spec, "dnsPolicy")...); err != nil {
			return fmt.Errorf("Deployment %s: %w", o.GetName(), err)
		}
		containers, _, err := unstructured.NestedSlice(o.Object, append(spec, "containers")...)
		if err != nil {
			return fmt.Errorf("Deployment %s: %w", o.GetName(), err)
		}
		for _, c := range containers {
			m, ok := c.(map[string]any)
			if !ok {
				return fmt.Errorf("Deployment %s: a container is not an object", o.GetName())
			}
			setPortFlags(m, map[string]int{"--diagnostics-address": metrics, "--health-addr": health, "--webhook-bind-address": webhook})
			setContainerPorts(m, map[string]int{"metrics": metrics, "healthz": health, "webhook": webhook})
		}
		if err := unstructured.SetNestedSlice(o.Object, containers, append(spec, "containers")...); err != nil {
			return fmt.Errorf("Deployment %s: %w", o.GetName(), err)
		}
	}
	return nil
}

// setPortFlags rewrites flags of the form --name=<host>:<port> to keep the host and use port.
func setPortFlags(container map[string]any, ports map[string]int) {
	args, _ := container["args"].([]any)
	for i, a := range args {
		s, _ := a.(string)
		name, value, ok := strings.Cut(s, "=")
		port, want := ports[name]
		if !ok || !want {
			continue
		}
		host := value
		if j := strings.LastIndex(value, ":"); j >= 0 {
			host = value[:j]
		}
		args[i] = name + "=" + host + ":" + strconv.Itoa(port)
	}
}

// setContainerPorts sets the containerPort of the named ports (probes refer to them by name).
func setContainerPorts(container map[string]any, ports map[string]int) {
	list, _ := container["ports"].([]any)
	for _, p := range list {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		if port, ok := ports[name]; ok {
			m["containerPort"] = int64(port)
		}
	}
}
