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

package kubeadmconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/version"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/external"
)

// fileTemplateData is what a file with contentFormat go-template is rendered with, as upstream's
// bootstrap provider renders it.
type fileTemplateData struct {
	// KubernetesVersion is the version without its "v", e.g. 1.37.2.
	KubernetesVersion string
}

// usesTemplates is true when a file of files is a go-template.
func usesTemplates(files []bootstrapv1.File) bool {
	return slices.ContainsFunc(files, func(f bootstrapv1.File) bool {
		return f.ContentFormat == bootstrapv1.FileContentFormatGoTemplate
	})
}

// templateData returns the data the go-template files of s.config are rendered with, nil when
// it has none. The version is the owner's, except for a worker, which takes the control plane's
// spec.version when the Cluster has a control plane that states one (a worker created by an
// upgrade may join before its own version is the one the control plane runs), as upstream does.
// wait says what is missing when the version cannot be read.
func (r *Reconciler) templateData(ctx context.Context, s *scope, kind cloudinit.Kind) (_ *fileTemplateData, wait string, _ error) {
	if !usesTemplates(s.config.Spec.Files) {
		return nil, "", nil
	}
	v := s.owner.spec().Version
	if kind == cloudinit.JoinWorker {
		cpVersion, wait, err := r.controlPlaneVersion(ctx, s)
		if wait != "" || err != nil {
			return nil, wait, err
		}
		if cpVersion != "" {
			v = cpVersion
		}
	}
	parsed, err := version.ParseSemantic(strings.TrimPrefix(v, "v"))
	if err != nil {
		return nil, fmt.Sprintf("Waiting for a Kubernetes version to render the go-template files of spec.files with: %q is not one (%v)", v, err), nil
	}
	return &fileTemplateData{KubernetesVersion: parsed.String()}, "", nil
}

// controlPlaneVersion reads spec.version of the Cluster's control plane, uncached (only workers
// with go-template files need it, once per rendering). It is empty when the Cluster has no
// control plane object or the object has no version.
func (r *Reconciler) controlPlaneVersion(ctx context.Context, s *scope) (_ string, wait string, _ error) {
	ref := s.cluster.Spec.ControlPlaneRef
	if !ref.IsDefined() {
		return "", "", nil
	}
	obj, _, err := external.Get(ctx, r.APIReader, ref, s.cluster.Namespace)
	switch {
	case errors.Is(err, contract.ErrCRDNotFound), apierrors.IsNotFound(err):
		return "", fmt.Sprintf("Waiting for %s %s, the control plane of Cluster %s, whose spec.version the go-template files of spec.files are rendered with: %v",
			ref.Kind, ref.Name, s.cluster.Name, err), nil
	case apierrors.IsForbidden(err):
		return "", fmt.Sprintf("Cannot read %s %s, the control plane of Cluster %s, whose spec.version the go-template files of spec.files are rendered with: grant this manager get on %s and its CRD (%v)",
			ref.Kind, ref.Name, s.cluster.Name, ref.GroupKind(), err), nil
	case err != nil:
		return "", "", err
	}
	v, err := contract.ControlPlane().Version().Get(obj)
	if errors.Is(err, contract.ErrFieldNotFound) || (err == nil && v == nil) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("reading spec.version of %s %s: %w", ref.Kind, ref.Name, err)
	}
	return *v, "", nil
}

// renderFileTemplate renders content, the resolved content of spec.files[i], when its format is
// go-template. The template is applied to the content as stored (before the node decodes its
// encoding), as upstream does.
func renderFileTemplate(i int, f bootstrapv1.File, content []byte, data *fileTemplateData) ([]byte, error) {
	if f.ContentFormat != bootstrapv1.FileContentFormatGoTemplate {
		return content, nil
	}
	if data == nil {
		return nil, fmt.Errorf("spec.files[%d] (%s) is a go-template, and no data was prepared for it", i, f.Path)
	}
	tpl, err := template.New(f.Path).Option("missingkey=error").Parse(string(content))
	if err != nil {
		return nil, fmt.Errorf("spec.files[%d] (%s): contentFormat is go-template and its content is not one: %w", i, f.Path, err)
	}
	var out bytes.Buffer
	if err := tpl.Execute(&out, data); err != nil {
		return nil, fmt.Errorf("spec.files[%d] (%s): its go-template cannot be rendered: %w; the template data holds {{ .KubernetesVersion }} only (%s here)",
			i, f.Path, err, data.KubernetesVersion)
	}
	return out.Bytes(), nil
}
