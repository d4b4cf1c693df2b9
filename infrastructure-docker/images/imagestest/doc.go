// Package imagestest proves the Capstan node and load-balancer images on a real Docker Engine.
//
// Its tests build the images with hack/images (cached: a run whose inputs did not change reuses
// the images), then run them through the Docker Engine Go client with exactly the flags the
// Docker provider uses, and check what a provider relies on: systemd reaches multi-user,
// containerd answers and already holds every image kubeadm wants (baked into the image, not
// imported at boot), the node binaries report the expected version, the host's sysctls are
// unchanged afterwards, and `kubeadm init` brings up an API server that answers /readyz.
// It owns nothing but the containers, volumes and networks it creates, which carry the label
// io.capstan.test=<test name> and are removed by that label, even when a test fails. It is
// skipped when no Docker Engine answers (`make docker-up`) or with -short.
package imagestest
