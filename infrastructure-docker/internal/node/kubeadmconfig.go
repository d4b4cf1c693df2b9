package node

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// The kubeadm configuration files the bootstrap data writes (bootstrap-kubeadm's renderer) and
// that the provider amends before the commands run.
const (
	kubeadmInitConfigPath = "/run/kubeadm/kubeadm.yaml"
	kubeadmJoinConfigPath = "/run/kubeadm/kubeadm-join-config.yaml"
)

// kubeadmIgnitionConfigPath is the kubeadm configuration file (init or join) of upstream's
// Ignition bootstrap data, which its /etc/kubeadm.sh hands to kubeadm.
const kubeadmIgnitionConfigPath = "/etc/kubeadm.yml"

// isKubeadmConfigPath reports whether p is one of the files amendKubeadmConfig applies to in
// cloud-config bootstrap data.
func isKubeadmConfigPath(p string) bool {
	return p == kubeadmInitConfigPath || p == kubeadmJoinConfigPath
}

// isIgnitionKubeadmConfigPath is isKubeadmConfigPath for Ignition bootstrap data.
func isIgnitionKubeadmConfigPath(p string) bool { return p == kubeadmIgnitionConfigPath }

// nodeKubeletArgs are the kubelet flags a node container needs on this machine (environment
// notes): the engine's cgroupfs driver, cgroup v1 allowed, eviction never triggered by the shared
// host disk, a pod resolv.conf without the loopback nameserver (the node image writes it), and no
// image garbage collection (the baked images cannot be pulled again). They describe the
// container, not the cluster: they replace a value the bootstrap data gave for the same flag.
var nodeKubeletArgs = []nameValue{
	{"cgroup-driver", "cgroupfs"},
	{"eviction-hard", "nodefs.available<0%,nodefs.inodesFree<0%,imagefs.available<0%"},
	{"fail-cgroupv1", "false"},
	{"image-gc-high-threshold", "100"},
	{"resolv-conf", "/etc/capstan/pod-resolv.conf"},
}

// nodeIgnoredPreflightErrors are the kubeadm preflight checks that fail in a node container
// here for reasons that do not matter to it (imagestest proves kubeadm init with them ignored):
// SystemVerification refuses cgroup v1; the bridge netfilter sysctl is the host's business.
var nodeIgnoredPreflightErrors = []string{
	"FileContent--proc-sys-net-bridge-bridge-nf-call-iptables",
	"Swap",
	"SystemVerification",
}

type nameValue struct{ name, value string }

// amendKubeadmConfig adds the node container's kubelet flags (nodeRegistration.kubeletExtraArgs)
// and ignored preflight errors (nodeRegistration.ignorePreflightErrors) to every
// InitConfiguration and JoinConfiguration document of a kubeadm configuration file, as upstream
// CAPD does. Other documents pass unchanged. kubeletExtraArgs is a list of {name, value} in
// kubeadm.k8s.io/v1beta4 and a map in v1beta3; both are handled. The documents are re-encoded
// (comments dropped, key order kept).
func amendKubeadmConfig(data []byte) ([]byte, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parsing the kubeadm configuration: %w", err)
		}
		if len(doc.Content) == 0 {
			continue // an empty document, e.g. a leading "---"
		}
		docs = append(docs, &doc)
	}
	var out bytes.Buffer
	initConfig, kubeProxy := false, false
	for _, doc := range docs {
		root := doc.Content[0]
		if root.Kind == yaml.MappingNode {
			apiVersion, kind := scalar(root, "apiVersion"), scalar(root, "kind")
			if strings.HasPrefix(apiVersion, "kubeadm.k8s.io/") && (kind == "InitConfiguration" || kind == "JoinConfiguration") {
				if err := amendNodeRegistration(mappingField(root, "nodeRegistration")); err != nil {
					return nil, fmt.Errorf("%s %s: %w", apiVersion, kind, err)
				}
				initConfig = initConfig || kind == "InitConfiguration"
			}
			if strings.HasPrefix(apiVersion, "kubeproxy.config.k8s.io/") && kind == "KubeProxyConfiguration" {
				setField(mappingField(root, "conntrack"), "maxPerCore", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "0"})
				kubeProxy = true
			}
		}
		out.WriteString("---\n")
		enc := yaml.NewEncoder(&out)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return nil, fmt.Errorf("encoding the kubeadm configuration: %w", err)
		}
		if err := enc.Close(); err != nil {
			return nil, fmt.Errorf("encoding the kubeadm configuration: %w", err)
		}
	}
	if initConfig && !kubeProxy {
		// kubeadm init writes the cluster-wide kube-proxy configuration from this document.
		out.WriteString(nodeKubeProxyConfiguration)
	}
	return out.Bytes(), nil
}

// nodeKubeProxyConfiguration keeps kube-proxy from sizing the conntrack table: nf_conntrack_max
// and the module's hashsize belong to the host, not to the node container's network namespace,
// and a node must never change the host's settings (kind does the same). Added to a file with an
// InitConfiguration that has no KubeProxyConfiguration; one that exists gets maxPerCore 0.
const nodeKubeProxyConfiguration = `---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
conntrack:
  maxPerCore: 0
`

func amendNodeRegistration(nr *yaml.Node) error {
	args := field(nr, "kubeletExtraArgs")
	switch {
	case args == nil:
		args = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		setField(nr, "kubeletExtraArgs", args)
		fallthrough
	case args.Kind == yaml.SequenceNode: // v1beta4: [{name, value}]
		for _, want := range nodeKubeletArgs {
			replaced := false
			for _, item := range args.Content {
				if item.Kind == yaml.MappingNode && scalar(item, "name") == want.name {
					setField(item, "value", str(want.value))
					replaced = true
				}
			}
			if !replaced {
				item := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				setField(item, "name", str(want.name))
				setField(item, "value", str(want.value))
				args.Content = append(args.Content, item)
			}
		}
	case args.Kind == yaml.MappingNode: // v1beta3: {name: value}
		for _, want := range nodeKubeletArgs {
			setField(args, want.name, str(want.value))
		}
	default:
		return fmt.Errorf("nodeRegistration.kubeletExtraArgs (line %d) is neither a list nor a mapping", args.Line)
	}

	ignored := field(nr, "ignorePreflightErrors")
	if ignored == nil {
		ignored = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		setField(nr, "ignorePreflightErrors", ignored)
	}
	if ignored.Kind != yaml.SequenceNode {
		return fmt.Errorf("nodeRegistration.ignorePreflightErrors (line %d) is not a list", ignored.Line)
	}
	for _, check := range nodeIgnoredPreflightErrors {
		present := false
		for _, item := range ignored.Content {
			if strings.EqualFold(item.Value, check) || strings.EqualFold(item.Value, "all") {
				present = true
			}
		}
		if !present {
			ignored.Content = append(ignored.Content, str(check))
		}
	}
	return nil
}

// field returns the value of key in the mapping m, or nil.
func field(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mappingField returns the mapping at key in m, creating it when absent or null.
func mappingField(m *yaml.Node, key string) *yaml.Node {
	v := field(m, key)
	if v == nil || v.Kind != yaml.MappingNode {
		v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		setField(m, key, v)
	}
	return v
}

func scalar(m *yaml.Node, key string) string {
	if v := field(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

func setField(m *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, str(key), value)
}

// str is a string scalar, quoted when YAML would read it as something else ("false", "100").
func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
