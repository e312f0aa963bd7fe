// Package v1 is the Go twin of examples/my-application/src/api.rs: the
// MyApplication API at stable.example.com/v1, written as a controller-gen
// user would.
// +groupName=stable.example.com
// +versionName=v1
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// MyApplication describes an application deployment: a container image run
// with a number of replicas behind a ClusterIP Service on one port.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=ma
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.availableReplicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Image",type="string",JSONPath=".spec.image"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".spec.replicas"
// +kubebuilder:printcolumn:name="Available",type="integer",JSONPath=".status.availableReplicas"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 55",message="metadata.name must be at most 55 characters long"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must match ^[a-z]([-a-z0-9]*[a-z0-9])?$"
type MyApplication struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MyApplicationSpec   `json:"spec"`
	Status MyApplicationStatus `json:"status,omitempty"`
}

// MyApplication describes an application deployment: a container image run
// with a number of replicas behind a ClusterIP Service on one port.
type MyApplicationSpec struct {
	// The container image to use for the application.
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`
	// The desired number of application replicas.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// The port the application listens on.
	// +kubebuilder:validation:Minimum=80
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default=80
	// +optional
	Port int32 `json:"port,omitempty"`
}

// The observed state of a MyApplication.
type MyApplicationStatus struct {
	// Replicas of the application's Deployment that are available.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`
	// The generation of the MyApplication this status describes.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// The label selector of the application's pods, for the scale subresource.
	// +optional
	Selector *string `json:"selector,omitempty"`
	// The latest observations of the application's state.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []ApplicationCondition `json:"conditions,omitempty"`
}

// One observation of a MyApplication's state.
type ApplicationCondition struct {
	// The aspect observed: `Ready`, `Progressing` or `Failed`.
	// +kubebuilder:validation:Enum=Ready;Progressing;Failed
	Type string `json:"type"`
	// Whether the condition holds: `True`, `False` or `Unknown`.
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status string `json:"status"`
	// A CamelCase reason for the last transition.
	// +optional
	Reason string `json:"reason"`
	// A human-readable explanation.
	// +optional
	Message string `json:"message"`
	// When the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
}
