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

// Package client calls Runtime Extensions over HTTPS as upstream Cluster API's Runtime SDK
// client does: discovery of an ExtensionConfig, and calls of one registered handler or of every
// handler of a hook, with the handler's timeout, its failurePolicy, the ExtensionConfig's
// namespaceSelector (matched against the labels of the Namespace the call is for) and settings.
// The extension's certificate is verified against the ExtensionConfig's caBundle only (the
// system roots when it is empty); redirects are not followed.
//
// Every error is a *CallError naming the extension, the hook and the handler, and its Kind says
// what failed (unreachable, TLS, timeout, a non-200 answer, a malformed body, a Failure answer,
// a misconfiguration), so a condition can say it. It owns no API object: the registry is
// filled by the ExtensionConfig controller.
package client
