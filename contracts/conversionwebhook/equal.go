package conversionwebhook

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// equalConversion compares the fields inject writes: conversion and served versions.
func equalConversion(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	if !equality.Semantic.DeepEqual(a.Spec.Conversion, b.Spec.Conversion) || len(a.Spec.Versions) != len(b.Spec.Versions) {
		return false
	}
	for i := range a.Spec.Versions {
		if a.Spec.Versions[i].Served != b.Spec.Versions[i].Served {
			return false
		}
	}
	return true
}
