package upgrade

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/providercomponents"
)

// readCRD reads the cluster's CRD name; nil when there is none.
func (u *Upgrader) readCRD(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	switch err := u.Client.Get(ctx, client.ObjectKey{Name: name}, obj); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)
	}
	return components.CRD(obj)
}

// checkStoredVersions refuses new CRDs that stop serving a version the cluster's objects are
// stored at (other than the new storage version): migration reads and rewrites each object
// through the API, which needs the old version still served while they are rewritten.
func (u *Upgrader) checkStoredVersions(ctx context.Context, comps providercomponents.Components) error {
	for _, o := range comps.Objects {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		next, err := components.CRD(o)
		if err != nil {
			return err
		}
		current, err := u.readCRD(ctx, o.GetName())
		if err != nil || current == nil {
			return err
		}
		storage := components.StorageVersion(next)
		var served, lost []string
		for _, v := range next.Spec.Versions {
			if v.Served {
				served = append(served, v.Name)
			}
		}
		for _, sv := range current.Status.StoredVersions {
			if sv != storage && !slices.Contains(served, sv) {
				lost = append(lost, sv)
			}
		}
		if len(lost) > 0 {
			return fmt.Errorf("CustomResourceDefinition %s has objects stored at %s (status.storedVersions %v), and %s serves only %s: "+
				"capstanctl migrates stored objects to the new storage version %s only while the old version is served; "+
				"upgrade first to a release that still serves %s",
				o.GetName(), strings.Join(lost, ", "), current.Status.StoredVersions, comps, strings.Join(served, ", "), storage, strings.Join(lost, ", "))
		}
	}
	return nil
}

// migrateStoredVersions rewrites, for each CRD whose status.storedVersions lists versions
// other than its storage version, every object of it unchanged (the API server stores it at
// the storage version), then sets status.storedVersions to the storage version alone, as
// clusterctl's CRD migrator does.
func (u *Upgrader) migrateStoredVersions(ctx context.Context, crds []*unstructured.Unstructured) error {
	for _, o := range crds {
		crd, err := u.readCRD(ctx, o.GetName())
		if err != nil {
			return err
		}
		if crd == nil {
			return fmt.Errorf("CustomResourceDefinition %s was applied and is gone", o.GetName())
		}
		storage := components.StorageVersion(crd)
		if slices.Equal(crd.Status.StoredVersions, []string{storage}) {
			continue
		}
		if err := u.waitForConversionCA(ctx, crd); err != nil {
			return err
		}
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(crd.Spec.Group + "/" + storage)
		list.SetKind(crd.Spec.Names.ListKind)
		if err := u.whileConverting(ctx, crd.Name, func() error { return u.Client.List(ctx, list) }); err != nil {
			return fmt.Errorf("listing the %s objects to migrate to %s: %w", crd.Spec.Names.Kind, storage, err)
		}
		for i := range list.Items {
			obj := &list.Items[i]
			err := u.whileConverting(ctx, crd.Name, func() error { return u.Client.Update(ctx, obj) })
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("migrating %s %s/%s to %s: %w", crd.Spec.Names.Kind, obj.GetNamespace(), obj.GetName(), storage, err)
			}
		}
		patch := fmt.Sprintf(`{"status":{"storedVersions":[%q]}}`, storage)
		target := &unstructured.Unstructured{}
		target.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
		target.SetName(crd.Name)
		if err := u.Client.Status().Patch(ctx, target, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			return fmt.Errorf("setting status.storedVersions of CustomResourceDefinition %s to [%s]: %w", crd.Name, storage, err)
		}
		fmt.Fprintf(u.out(), "CustomResourceDefinition %s: %d %s objects migrated from %v to %s\n",
			crd.Name, len(list.Items), crd.Spec.Names.Kind, crd.Status.StoredVersions, storage)
	}
	return nil
}

// whileConverting runs op until it no longer fails on the CRD's conversion webhook, for at most
// ConversionWait. A release that adds a storage version usually converts the old one by webhook,
// served by the manager the upgrade has just applied: reading the old objects at the new version
// fails until that manager runs and has written its CA into the CRD, seconds to a minute later.
func (u *Upgrader) whileConverting(ctx context.Context, crd string, op func() error) error {
	var last error
	return u.waitForConversion(ctx, func() (bool, error) {
		last = op()
		return last == nil || !isConversionFailure(last), last
	}, func(limit time.Duration) error {
		return fmt.Errorf("%w: the conversion webhook of CustomResourceDefinition %s did not answer within %s; "+
			"check that the new release's manager is running (its Deployment's pods and their logs), then run upgrade apply again", last, crd, limit)
	}, func() string {
		return fmt.Sprintf("CustomResourceDefinition %s: waiting for its conversion webhook to answer (%v)", crd, last)
	})
}

// isConversionFailure says whether the API server failed a request because it could not convert
// through a CRD's conversion webhook (unreachable, untrusted certificate, an error answer).
func isConversionFailure(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status) && strings.Contains(status.Status().Message, "conversion webhook")
}

// waitForConversionCA waits, for at most ConversionWait, until a CRD converting by webhook has
// the CA its webhook is trusted with (clientConfig.caBundle), which the new release's manager
// (or cert-manager's CA injector) writes once it runs. Why not only retry failed reads: the API
// server switches a CRD's conversion a moment after the update that changed it, and a read in
// that moment converts as the old CRD did (None: the apiVersion rewritten, nothing else); its
// write-back would then prune every field the new version moved. The CA arrives seconds later,
// from a process started after the change, so the switch is behind us by then.
func (u *Upgrader) waitForConversionCA(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	name, reread := crd.Name, false
	return u.waitForConversion(ctx, func() (bool, error) {
		if reread {
			next, err := u.readCRD(ctx, name)
			if err != nil {
				return true, err
			}
			if next == nil {
				return true, fmt.Errorf("CustomResourceDefinition %s was applied and is gone", name)
			}
			crd = next
		}
		reread = true
		c := crd.Spec.Conversion
		return c == nil || c.Strategy != apiextensionsv1.WebhookConverter || c.Webhook == nil || c.Webhook.ClientConfig == nil ||
			len(c.Webhook.ClientConfig.CABundle) > 0, nil
	}, func(limit time.Duration) error {
		return fmt.Errorf("CustomResourceDefinition %s converts by webhook and its spec.conversion.webhook.clientConfig.caBundle is still empty after %s: "+
			"the new release's manager (or cert-manager) writes it once it runs; check its Deployment's pods, then run upgrade apply again", name, limit)
	}, func() string {
		return fmt.Sprintf("CustomResourceDefinition %s: waiting for its conversion webhook's CA (the new release's manager writes it when it starts)", name)
	})
}

// waitForConversion polls done every PollInterval until it reports done (with its error), for at
// most ConversionWait (five minutes when zero): the first wait prints waiting()'s line, the
// deadline returns timedOut's error.
func (u *Upgrader) waitForConversion(ctx context.Context, done func() (bool, error), timedOut func(time.Duration) error, waiting func() string) error {
	limit := cmp.Or(u.ConversionWait, 5*time.Minute)
	deadline := time.Now().Add(limit)
	for told := false; ; told = true {
		if ok, err := done(); ok {
			return err
		}
		if time.Now().After(deadline) {
			return timedOut(limit)
		}
		if !told {
			fmt.Fprintln(u.out(), waiting())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(cmp.Or(u.PollInterval, time.Second)):
		}
	}
}
