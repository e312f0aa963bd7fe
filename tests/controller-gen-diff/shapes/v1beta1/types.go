// Package v1beta1 holds the unserved old version of Legacy (twin of
// rust/src/shapes.rs's legacy module).
// +groupName=shapes.cgdiff.example.com
// +versionName=v1beta1
package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Legacy has an unserved old version.
// +kubebuilder:object:root=true
// +kubebuilder:unservedversion
type Legacy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec LegacySpec `json:"spec"`
}

// Legacy has an unserved old version.
type LegacySpec struct {
	// A phase, a +k8s:enum type.
	Phase Phase `json:"phase"`
	// A default given as JSON.
	// +default={"a":1}
	// +optional
	Tuning map[string]int32 `json:"tuning,omitempty"`
}

// A phase.
// +k8s:enum
type Phase string

const (
	// Starting up.
	PhasePending Phase = "Pending"
	// Up.
	PhaseRunning Phase = "Running"
)
