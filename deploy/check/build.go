// Package check builds the Kubernetes overlays of deploy/k8s with kustomize
// and holds the checks that keep them true to the code: every object
// decodes strictly into k8s.io/api's types, and the shop's containers read
// only variables the shop reads, serve on its port, probe its routes and run
// the image docker-compose.yml builds. Its tests run them in make test; the
// shop never imports it (kustomize and k8s.io/api stay out of its binary).
package check

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Build runs kustomize on the folder dir as `kubectl apply -k` would (files
// only from inside each kustomization's root) and decodes every object.
func Build(dir string) ([]Object, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var out []Object
	for _, r := range rm.Resources() {
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.CurId(), err)
		}
		o, err := Decode(data)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
