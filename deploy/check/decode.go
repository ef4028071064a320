package check

import (
	"encoding/json"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Object is one decoded object of a build: Obj is a pointer to its
// k8s.io/api type (*appsv1.Deployment, *corev1.Service, ...).
type Object struct {
	Kind, Name string
	Obj        any
}

func (o Object) String() string { return o.Kind + "/" + o.Name }

// kinds are the types the manifests may use, by apiVersion and kind: any
// other is an error (a typo in apiVersion included).
var kinds = map[[2]string]func() any{
	{"apps/v1", "Deployment"}:            func() any { return &appsv1.Deployment{} },
	{"apps/v1", "StatefulSet"}:           func() any { return &appsv1.StatefulSet{} },
	{"v1", "Service"}:                    func() any { return &corev1.Service{} },
	{"v1", "ConfigMap"}:                  func() any { return &corev1.ConfigMap{} },
	{"v1", "Secret"}:                     func() any { return &corev1.Secret{} },
	{"v1", "Namespace"}:                  func() any { return &corev1.Namespace{} },
	{"networking.k8s.io/v1", "Ingress"}:  func() any { return &networkingv1.Ingress{} },
	{"policy/v1", "PodDisruptionBudget"}: func() any { return &policyv1.PodDisruptionBudget{} },
	{"autoscaling/v2", "HorizontalPodAutoscaler"}: func() any {
		return &autoscalingv2.HorizontalPodAutoscaler{}
	},
}

// Decode reads one object (JSON or YAML) strictly: an unknown or
// misspelt field, a field of the wrong case, a duplicate key or an
// unknown kind is an error, as the API server's strict field validation
// would refuse it.
func Decode(data []byte) (Object, error) {
	data, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return Object{}, err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Object{}, err
	}
	o := Object{Kind: head.Kind, Name: head.Metadata.Name}
	mk, ok := kinds[[2]string{head.APIVersion, head.Kind}]
	if !ok {
		return o, fmt.Errorf("%s: apiVersion %q kind %q is none the manifests may use", o, head.APIVersion, head.Kind)
	}
	o.Obj = mk()
	strict, err := kjson.UnmarshalStrict(data, o.Obj)
	if err != nil {
		return o, fmt.Errorf("%s: %w", o, err)
	}
	if len(strict) > 0 {
		return o, fmt.Errorf("%s: %w", o, errors.Join(strict...))
	}
	return o, nil
}
