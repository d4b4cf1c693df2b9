package envtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"capstan.dev/contracts/config/crd"
)

// CoreCRDs decodes the core CRDs embedded in capstan.dev/contracts/config/crd.
func CoreCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return DecodeCRDs(crd.Bases, "bases")
}

// DecodeCRDs reads every *.yaml file under dir of fsys (non-recursive) and decodes the
// CustomResourceDefinitions in it, in file-name order.
func DecodeCRDs(fsys fs.FS, dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("reading CRD directory %s: %w", dir, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && path.Ext(e.Name()) == ".yaml" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, name := range names {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &apiextensionsv1.CustomResourceDefinition{}
			if err := dec.Decode(obj); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("decoding CRD in %s: %w", name, err)
			}
			if obj.Name == "" { // an empty YAML document
				continue
			}
			if obj.Kind != "CustomResourceDefinition" {
				return nil, fmt.Errorf("%s holds a %s, not a CustomResourceDefinition", name, obj.Kind)
			}
			out = append(out, obj)
		}
	}
	return out, nil
}
