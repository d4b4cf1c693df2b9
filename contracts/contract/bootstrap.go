package contract

// BootstrapContract holds the accessors for BootstrapConfig objects (KubeadmConfig,
// GenericBootstrapConfig, ...).
type BootstrapContract struct{}

// Bootstrap returns the BootstrapConfig accessors.
func Bootstrap() BootstrapContract { return BootstrapContract{} }

// DataSecretName is status.dataSecretName: the Secret, in the config's namespace,
// whose "value" key holds the bootstrap data.
func (BootstrapContract) DataSecretName() StringField {
	return StringField{at("status", "dataSecretName")}
}

// DataSecretCreated is status.initialization.dataSecretCreated (v1beta2) or
// status.ready (v1beta1).
func (BootstrapContract) DataSecretCreated(v ContractVersion) BoolField {
	return BoolField{versioned(v, "BootstrapConfig dataSecretCreated",
		Path{"status", "initialization", "dataSecretCreated"}, Path{"status", "ready"})}
}

// FailureReason is status.failureReason, which only v1beta1 defines.
func (BootstrapContract) FailureReason(v ContractVersion) StringField {
	return StringField{versioned(v, "BootstrapConfig status.failureReason", nil, Path{"status", "failureReason"})}
}

// FailureMessage is status.failureMessage, which only v1beta1 defines.
func (BootstrapContract) FailureMessage(v ContractVersion) StringField {
	return StringField{versioned(v, "BootstrapConfig status.failureMessage", nil, Path{"status", "failureMessage"})}
}
