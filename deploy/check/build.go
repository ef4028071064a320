// Package check builds the Kubernetes overlays of deploy/k8s with kustomize
// and holds the checks that keep them true to the code: every object
// decodes strictly into k8s.io/api's types, and the shop's containers read
// only variables the shop reads, serve on its port, probe its routes and run
// the image docker-compose.yml builds; a build that runs its own backends
// names them by pods and Services it has (addresses.go). Its tests run them
// in make test; the shop never imports it (kustomize and k8s.io/api stay out
// of its binary).
package check

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Build runs kustomize on the folder dir as `kubectl apply -k` would (files
// only from inside each kustomization's root) and decodes every object.
func Build(dir string) ([]Object, error) {
	docs, err := BuildJSON(dir)
	if err != nil {
		return nil, err
	}
	return DecodeAll(docs)
}

// BuildJSON runs kustomize on dir and returns every object as JSON.
func BuildJSON(dir string) ([][]byte, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var out [][]byte
	for _, r := range rm.Resources() {
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.CurId(), err)
		}
		out = append(out, data)
	}
	return out, nil
}

// DecodeAll decodes every document strictly (Decode).
func DecodeAll(docs [][]byte) ([]Object, error) {
	out := make([]Object, 0, len(docs))
	for _, d := range docs {
		o, err := Decode(d)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
