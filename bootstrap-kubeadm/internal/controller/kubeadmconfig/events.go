package kubeadmconfig

// ControllerName is the Events' reportingController, as upstream's.
const ControllerName = "kubeadmconfig-controller"

// ReasonBootstrapDataWritten, on the KubeadmConfig: its bootstrap data Secret was created, or
// updated with newly rendered data (a new bootstrap token). Upstream records no Event here.
const ReasonBootstrapDataWritten = "BootstrapDataWritten"
