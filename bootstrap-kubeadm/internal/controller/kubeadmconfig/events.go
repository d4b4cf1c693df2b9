package kubeadmconfig

// ControllerName is the Events' reportingController, as upstream's.
const ControllerName = "kubeadmconfig-controller"

// ReasonBootstrapDataWritten, on the KubeadmConfig: its bootstrap data Secret was created, or
// updated with newly rendered data (a new bootstrap token). Upstream records no Event here.
const ReasonBootstrapDataWritten = "BootstrapDataWritten"

// ReasonIgnitionConfigIgnored, a Warning on the KubeadmConfig: parts of
// spec.ignition.containerLinuxConfig.additionalConfig (a section, an unknown field) are not in
// the Ignition bootstrap data; the message names them. Upstream only logs its transpiler's warnings.
const ReasonIgnitionConfigIgnored = "IgnitionConfigIgnored"
