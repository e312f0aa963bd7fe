// The MyApplication API (stable.example.com/v1) as Go types: the same JSON
// as the Rust example's `api.rs`, with the deep copies controller-gen would
// write (hand-written here: the peer needs no generator run).
package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
