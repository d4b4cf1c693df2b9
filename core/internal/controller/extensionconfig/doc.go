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

// Package extensionconfig reconciles ExtensionConfigs (runtime.cluster.x-k8s.io): it calls each
// Runtime Extension's discovery, writes the handlers it reports to status.handlers (sorted), sets
// the Discovered condition (False with a message naming the extension and what failed:
// unreachable, TLS, timeout, malformed answer, Failure) and registers the handlers in the
// in-memory registry the Runtime SDK client calls through.
//
// Discovery runs again when the spec changes (a new caBundle is a new generation), when the
// last discovery failed (with backoff) and every RediscoveryInterval (an extension may serve new
// handlers after a rollout). In between, a reconcile registers what status holds and writes
// nothing. It owns the status of ExtensionConfigs only; it never writes their spec (the caBundle
// is written by whoever runs the extension) and holds no finalizer.
//
// Not done here, unlike upstream: the inject-ca-from-secret annotation, the warm-up runnable
// that fails hook lookups until every ExtensionConfig was discovered, and the read-only mode.
package extensionconfig
