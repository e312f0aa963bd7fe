// Package v1 is the twin of rust/src/loose.rs: a package whose fields are
// optional unless marked required.
// +groupName=loose.cgdiff.example.com
// +versionName=v1
// +kubebuilder:validation:Optional
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Loose has optional fields by default.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Loose struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec LooseSpec `json:"spec"`
}

// Loose has optional fields by default.
type LooseSpec struct {
	// Optional by the package's marker.
	Name string `json:"name"`
	// Optional by the package's marker.
	Count int32 `json:"count"`
	// Required all the same.
	// +required
	Key string `json:"key"`
	// A nested type of the package.
	Part LoosePart `json:"part"`
}

// A nested type of the package.
type LoosePart struct {
	// Optional by the package's marker.
	Label string `json:"label"`
}
