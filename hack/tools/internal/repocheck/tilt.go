package repocheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"capstan.dev/contracts/image"
)

// TiltProvider is one entry of tilt-provider.json, in the shape upstream Cluster
// API's Tiltfile reads through provider_repos.
type TiltProvider struct {
	Name   string `json:"name"`
	Config struct {
		Context        string   `json:"context"`
		Image          string   `json:"image"`
		LiveReloadDeps []string `json:"live_reload_deps"`
		Label          string   `json:"label"`
		GoMain         string   `json:"go_main"`
	} `json:"config"`
}

// LoadTiltProviders reads root/tilt-provider.json.
func LoadTiltProviders(root string) ([]TiltProvider, error) {
	data, err := os.ReadFile(filepath.Join(root, "tilt-provider.json"))
	if err != nil {
		return nil, err
	}
	var ps []TiltProvider
	if err := json.Unmarshal(data, &ps); err != nil {
		return nil, fmt.Errorf("tilt-provider.json: %w", err)
	}
	return ps, nil
}

// ValidateTiltProvider checks an entry the way the upstream Tiltfile uses it: the
// context, go_main and every live_reload_deps path exist relative to root/context,
// and the image is the one the provider's kustomize manager base deploys.
func ValidateTiltProvider(root string, p TiltProvider) error {
	var errs []error
	c := p.Config
	if p.Name == "" || c.Context == "" || c.Image == "" || c.Label == "" {
		errs = append(errs, fmt.Errorf("%q: name, config.context, config.image and config.label are required", p.Name))
	}
	ctxDir := filepath.Join(root, c.Context)
	goMain := c.GoMain
	if goMain == "" {
		goMain = "main.go" // the Tiltfile's default
	}
	// Upstream's Tiltfile also runs `kustomize build <context>/config/default`.
	for _, rel := range append([]string{".", goMain, "config/default/kustomization.yaml"}, c.LiveReloadDeps...) {
		if _, err := os.Stat(filepath.Join(ctxDir, rel)); err != nil {
			errs = append(errs, fmt.Errorf("%s: path %s (relative to context %s) does not exist", p.Name, rel, c.Context))
		}
	}
	img, err := KustomizedManagerImage(ctxDir)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", p.Name, err))
	} else if image.Parse(img).Name != c.Image {
		errs = append(errs, fmt.Errorf("%s: config.image %s differs from the kustomize manager image %s", p.Name, c.Image, img))
	}
	return errors.Join(errs...)
}

// KustomizedManagerImage returns the manager container's image as `kustomize build
// <providerDir>/config/default` would write it: the image in config/manager/manager.yaml,
// then the `images:` transformer of config/manager/kustomization.yaml, then that of
// config/default/kustomization.yaml (the inner base first, as kustomize applies them).
func KustomizedManagerImage(providerDir string) (string, error) {
	img, err := managerImage(filepath.Join(providerDir, "config", "manager", "manager.yaml"))
	if err != nil {
		return "", err
	}
	for _, k := range []string{"manager", "default"} {
		path := filepath.Join(providerDir, "config", k, "kustomization.yaml")
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return "", err
		}
		var kz struct {
			Images []kustomizeImage `json:"images"`
		}
		if err := yaml.Unmarshal(data, &kz); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		img = applyImages(img, kz.Images)
	}
	return img, nil
}

// kustomizeImage is one entry of a kustomization's images: list.
type kustomizeImage struct {
	Name    string `json:"name"`
	NewName string `json:"newName"`
	NewTag  string `json:"newTag"`
	Digest  string `json:"digest"`
}

// applyImages is kustomize's images transformer for one image reference: the first
// entry whose name equals the reference's name (without tag or digest) replaces the
// name with newName and the tag with newTag, or with @digest.
func applyImages(ref string, images []kustomizeImage) string {
	r := image.Parse(ref)
	for _, im := range images {
		if im.Name != r.Name {
			continue
		}
		if im.NewName != "" {
			r.Name = im.NewName
		}
		switch {
		case im.Digest != "":
			r.Tag, r.Digest = "", im.Digest
		case im.NewTag != "":
			r.Tag, r.Digest = im.NewTag, ""
		}
		break
	}
	return r.String()
}

// managerImage returns the image of the container named "manager" in a Deployment.
func managerImage(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name  string `json:"name"`
						Image string `json:"image"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &d); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "manager" {
			return c.Image, nil
		}
	}
	return "", fmt.Errorf("%s has no container named manager", path)
}
