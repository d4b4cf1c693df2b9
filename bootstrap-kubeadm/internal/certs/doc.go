/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package certs owns the cluster certificates a kubeadm control plane is built on: the
// Secrets <cluster>-ca, <cluster>-etcd and <cluster>-proxy (self-signed CAs, tls.crt/tls.key)
// and <cluster>-sa (the service-account signing key pair: tls.crt holds the PEM public key,
// tls.key the private key), as the provider contract names them (contracts/secret).
//
// LookupOrGenerate reads the Secrets that exist and creates the missing ones. It is safe to run
// from several reconcilers and after a restart: a Secret is created, never updated, and when a
// create loses a race (AlreadyExists) the stored Secret is read back and used, so a cluster
// never ends up with two CAs. Reads go through the reader the caller passes, which must be
// uncached (the manager's APIReader): providers never cache Secrets.
//
// Keys follow clusterConfiguration.encryptionAlgorithm (RSA-2048, kubeadm's default, when unset)
// and CAs are valid for caCertificateValidityPeriodDays (3650 when unset), as kubeadm would
// generate them. With clusterConfiguration.etcd.external the etcd CA (certificate only) and the
// API server's etcd client pair (<cluster>-apiserver-etcd-client) are the user's: looked up,
// never generated (Plan).
// The package decides nothing about when certificates may be generated (only before the control
// plane is initialized; afterwards a new CA would split the cluster): its callers do.
package certs
