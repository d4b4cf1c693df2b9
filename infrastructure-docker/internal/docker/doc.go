// Package docker is the Docker provider's only door to the Docker Engine: a thin layer over the
// Engine API client that creates, inspects, starts, signals, execs into and removes the
// provider's containers and volumes, and ensures the provider's networks.
//
// Ownership is by label. Every object it creates carries io.capstan.provider=infrastructure-docker
// and io.capstan.plane=<plane> (one management plane: the provider's networks are named after
// it), plus the owning cluster's namespace and name and the container's role. Lookups filter on
// the provider and plane labels, and every mutating call takes a *Container that came from such a
// lookup and re-checks its labels: the package never acts on a container, volume or network
// without our labels, so it cannot harm what a user or another management plane runs on the
// same engine.
//
// Networks: nodes run on an --internal bridge network named after the plane (no route off the
// box: environment notes). Docker ignores published ports on internal networks, so a container
// that publishes a port (the load balancer) is also attached to a second bridge, <plane>-publish,
// created without IP masquerading; its port is published on 127.0.0.1 only.
//
// Node containers get exactly the flags proven on this machine (infrastructure-docker/images
// README and imagestest): not --privileged (the engine refuses it here), but --cap-add ALL
// --cap-drop SYS_RESOURCE, seccomp=unconfined, /dev/kmsg, the device cgroup rule 'a *:* rwm', a
// private cgroup namespace, a named volume for /var and --dns 127.0.0.1.
package docker
