// The MyApplication API (stable.example.com/v1) as Go types: the same JSON
// as the Rust example's `api.rs`, with the deep copies controller-gen would
// write (hand-written here: the peer needs no generator run).
package main

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
)

// groupVersion is the served and storage version the controller works with.
var groupVersion = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}

// MyApplicationSpec is what the user asks for.
type MyApplicationSpec struct {
	Image    string `json:"image"`
	Replicas int32  `json:"replicas"`
	Port     int32  `json:"port"`
}

// ApplicationCondition is one entry of status.conditions.
type ApplicationCondition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	Reason             string      `json:"reason"`
	Message            string      `json:"message"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
}

// MyApplicationStatus is what the controller observed.
type MyApplicationStatus struct {
	AvailableReplicas  *int32                 `json:"availableReplicas,omitempty"`
	ObservedGeneration *int64                 `json:"observedGeneration,omitempty"`
	Selector           *string                `json:"selector,omitempty"`
	Conditions         []ApplicationCondition `json:"conditions,omitempty"`
}

// MyApplication is the custom resource.
type MyApplication struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MyApplicationSpec    `json:"spec"`
	Status            *MyApplicationStatus `json:"status,omitempty"`
}

// MyApplicationList is a page of MyApplications.
type MyApplicationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MyApplication `json:"items"`
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(groupVersion, &MyApplication{}, &MyApplicationList{})
	metav1.AddToGroupVersion(scheme, groupVersion)
	return nil
}

// DeepCopyInto copies every field, sharing no memory with s.
func (s *MyApplicationStatus) DeepCopyInto(out *MyApplicationStatus) {
	*out = *s
	if s.AvailableReplicas != nil {
		v := *s.AvailableReplicas
		out.AvailableReplicas = &v
	}
	if s.ObservedGeneration != nil {
		v := *s.ObservedGeneration
		out.ObservedGeneration = &v
	}
	if s.Selector != nil {
		v := *s.Selector
		out.Selector = &v
	}
	if s.Conditions != nil {
		out.Conditions = make([]ApplicationCondition, len(s.Conditions))
		for i := range s.Conditions {
			out.Conditions[i] = s.Conditions[i]
			s.Conditions[i].LastTransitionTime.DeepCopyInto(&out.Conditions[i].LastTransitionTime)
		}
	}
}

// DeepCopyInto copies every field, sharing no memory with a.
func (a *MyApplication) DeepCopyInto(out *MyApplication) {
	*out = *a
	out.TypeMeta = a.TypeMeta
	a.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if a.Status != nil {
		out.Status = new(MyApplicationStatus)
		a.Status.DeepCopyInto(out.Status)
	}
}

// DeepCopyObject implements runtime.Object.
func (a *MyApplication) DeepCopyObject() runtime.Object {
	if a == nil {
		return nil
	}
	out := new(MyApplication)
	a.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *MyApplicationList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(MyApplicationList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]MyApplication, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// groupVersionV2 is the second served version: several named ports.
var groupVersionV2 = schema.GroupVersion{Group: "stable.example.com", Version: "v2"}

// ApplicationPort is one entry of v2's spec.ports.
type ApplicationPort struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// MyApplicationV2Spec is v2's spec: v1's single port becomes a list.
type MyApplicationV2Spec struct {
	Image    string            `json:"image"`
	Replicas int32             `json:"replicas"`
	Ports    []ApplicationPort `json:"ports"`
}

// MyApplicationV2 is the custom resource at v2, converted to and from v1
// (the hub) by the conversion webhook controller-runtime serves at
// /convert, as a kubebuilder project with a second version does it.
type MyApplicationV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MyApplicationV2Spec  `json:"spec"`
	Status            *MyApplicationStatus `json:"status,omitempty"`
}

// MyApplicationV2List is a page of v2 MyApplications.
type MyApplicationV2List struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MyApplicationV2 `json:"items"`
}

func addKnownTypesV2(scheme *runtime.Scheme) error {
	scheme.AddKnownTypeWithName(groupVersionV2.WithKind("MyApplication"), &MyApplicationV2{})
	scheme.AddKnownTypeWithName(groupVersionV2.WithKind("MyApplicationList"), &MyApplicationV2List{})
	metav1.AddToGroupVersion(scheme, groupVersionV2)
	return nil
}

// Hub marks v1 as the version every other converts through.
func (*MyApplication) Hub() {}

// ConvertTo converts this v2 object to the hub (v1): the first port.
func (a *MyApplicationV2) ConvertTo(hub conversion.Hub) error {
	dst := hub.(*MyApplication)
	a.ObjectMeta.DeepCopyInto(&dst.ObjectMeta)
	dst.Spec = MyApplicationSpec{Image: a.Spec.Image, Replicas: a.Spec.Replicas}
	if len(a.Spec.Ports) == 0 {
		return fmt.Errorf("spec.ports must name at least one port")
	}
	dst.Spec.Port = a.Spec.Ports[0].Port
	if a.Status != nil {
		dst.Status = new(MyApplicationStatus)
		a.Status.DeepCopyInto(dst.Status)
	}
	return nil
}

// ConvertFrom converts the hub (v1) to this version: one port named http.
func (a *MyApplicationV2) ConvertFrom(hub conversion.Hub) error {
	src := hub.(*MyApplication)
	src.ObjectMeta.DeepCopyInto(&a.ObjectMeta)
	a.Spec = MyApplicationV2Spec{
		Image:    src.Spec.Image,
		Replicas: src.Spec.Replicas,
		Ports:    []ApplicationPort{{Name: "http", Port: src.Spec.Port}},
	}
	if src.Status != nil {
		a.Status = new(MyApplicationStatus)
		src.Status.DeepCopyInto(a.Status)
	}
	return nil
}

// DeepCopyObject implements runtime.Object.
func (a *MyApplicationV2) DeepCopyObject() runtime.Object {
	if a == nil {
		return nil
	}
	out := new(MyApplicationV2)
	*out = *a
	a.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Ports = append([]ApplicationPort(nil), a.Spec.Ports...)
	if a.Status != nil {
		out.Status = new(MyApplicationStatus)
		a.Status.DeepCopyInto(out.Status)
	}
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *MyApplicationV2List) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(MyApplicationV2List)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]MyApplicationV2, len(l.Items))
		for i := range l.Items {
			out.Items[i] = *l.Items[i].DeepCopyObject().(*MyApplicationV2)
		}
	}
	return out
}
