package repocheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
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
	for _, rel := range append([]string{".", goMain}, c.LiveReloadDeps...) {
		if _, err := os.Stat(filepath.Join(ctxDir, rel)); err != nil {
			errs = append(errs, fmt.Errorf("%s: path %s (relative to context %s) does not exist", p.Name, rel, c.Context))
		}
	}
	img, err := managerImage(filepath.Join(ctxDir, "config", "manager", "manager.yaml"))
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", p.Name, err))
	} else if repo := strings.SplitN(img, ":", 2)[0]; repo != c.Image {
		errs = append(errs, fmt.Errorf("%s: config.image %s differs from the kustomize manager image %s", p.Name, c.Image, img))
	}
	return errors.Join(errs...)
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
