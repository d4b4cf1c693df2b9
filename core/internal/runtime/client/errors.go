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

package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
)

// ErrorKind says what failed in a call.
type ErrorKind string

// The kinds of CallError. FailurePolicy Ignore masks the transport kinds only (Unreachable, TLS,
// Timeout, BadStatus, Malformed); a Failure answer and a misconfiguration always fail.
const (
	Unreachable   ErrorKind = "Unreachable"
	TLS           ErrorKind = "TLSFailure"
	Timeout       ErrorKind = "Timeout"
	BadStatus     ErrorKind = "BadHTTPStatus"
	Malformed     ErrorKind = "MalformedResponse"
	Failure       ErrorKind = "Failure"
	Misconfigured ErrorKind = "Misconfigured"
)

// CallError is a failed call of a handler (or of an extension's discovery).
type CallError struct {
	// Extension is the ExtensionConfig's name, Hook the hook, Handler the handler's full name
	// (empty for discovery).
	Extension, Hook, Handler string
	Kind                     ErrorKind
	Err                      error
}

func (e *CallError) Error() string {
	what := fmt.Sprintf("%s of extension %s", e.Hook, e.Extension)
	if e.Handler != "" {
		what = fmt.Sprintf("%s handler %s of extension %s", e.Hook, e.Handler, e.Extension)
	}
	return fmt.Sprintf("calling %s: %s: %v", what, e.Kind, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// ignorable says whether failurePolicy Ignore masks the error.
func (e *CallError) ignorable() bool {
	switch e.Kind {
	case Unreachable, TLS, Timeout, BadStatus, Malformed:
		return true
	}
	return false
}

// KindOf returns the kind of a *CallError in err's chain, or "".
func KindOf(err error) ErrorKind {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Kind
	}
	return ""
}

// transportKind classifies an error of the HTTP round trip.
func transportKind(ctx context.Context, err error) ErrorKind {
	var (
		unknownCA  x509.UnknownAuthorityError
		hostname   x509.HostnameError
		invalid    x509.CertificateInvalidError
		verify     *tls.CertificateVerificationError
		header     tls.RecordHeaderError
		netErr     net.Error
		urlErr     *url.Error
		opErr      *net.OpError
		certVerify = errors.As(err, &verify) || errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid)
	)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return Timeout
	case certVerify || errors.As(err, &header):
		return TLS
	case errors.As(err, &opErr) || errors.As(err, &urlErr):
		return Unreachable
	}
	return Unreachable
}
