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

package v1alpha1

// Accessors let a caller handle every request and response alike (set the settings, read the
// status), as upstream's RequestObject and ResponseObject interfaces do.

// Request is any hook request.
type Request interface {
	GetSettings() map[string]string
	SetSettings(map[string]string)
}

// Response is any hook response.
type Response interface {
	GetStatus() ResponseStatus
	SetStatus(ResponseStatus)
	GetMessage() string
	SetMessage(string)
}

// RetryResponse is the response of a blocking hook.
type RetryResponse interface {
	Response
	GetRetryAfterSeconds() int32
	SetRetryAfterSeconds(int32)
}

// GetSettings returns the settings.
func (r *CommonRequest) GetSettings() map[string]string { return r.Settings }

// SetSettings sets the settings.
func (r *CommonRequest) SetSettings(s map[string]string) { r.Settings = s }

// GetStatus returns the status.
func (r *CommonResponse) GetStatus() ResponseStatus { return r.Status }

// SetStatus sets the status.
func (r *CommonResponse) SetStatus(s ResponseStatus) { r.Status = s }

// GetMessage returns the message.
func (r *CommonResponse) GetMessage() string { return r.Message }

// SetMessage sets the message.
func (r *CommonResponse) SetMessage(m string) { r.Message = m }

// GetRetryAfterSeconds returns retryAfterSeconds.
func (r *CommonRetryResponse) GetRetryAfterSeconds() int32 { return r.RetryAfterSeconds }

// SetRetryAfterSeconds sets retryAfterSeconds.
func (r *CommonRetryResponse) SetRetryAfterSeconds(s int32) { r.RetryAfterSeconds = s }

// Discovery has no settings (upstream's DiscoveryRequest carries none).
var (
	_ Response      = &DiscoveryResponse{}
	_ Request       = &BeforeClusterCreateRequest{}
	_ RetryResponse = &BeforeClusterCreateResponse{}
	_ Response      = &AfterControlPlaneInitializedResponse{}
	_ Request       = &GeneratePatchesRequest{}
	_ Response      = &GeneratePatchesResponse{}
)
