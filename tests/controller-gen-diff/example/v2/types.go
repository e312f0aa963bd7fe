// Package v2 is the Go twin of examples/my-application/src/api/v2.rs: the
// MyApplication API at stable.example.com/v2 (served, not stored).
// +groupName=stable.example.com
// +versionName=v2
package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "kubegen.test/controllergendiff/example/v1"
)

// MyApplication describes an application deployment: a container image run
// with a number of replicas behind a ClusterIP Service on its ports.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=ma
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Image",type="string",JSONPath=".spec.image"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".spec.replicas"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 55",message="metadata.name must be at most 55 characters long"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must match ^[a-z]([-a-z0-9]*[a-z0-9])?$"
type MyApplication struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MyApplicationSpec      `json:"spec"`
	Status v1.MyApplicationStatus `json:"status,omitempty"`
}

// MyApplication describes an application deployment: a container image run
// with a number of replicas behind a ClusterIP Service on its ports.
type MyApplicationSpec struct {
	// The container image to use for the application.
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`
	// The desired number of application replicas.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// The ports the application listens on; the first is the one v1
	// shows as `port`.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=name
	Ports []ApplicationPort `json:"ports"`
}

// One port the application listens on.
type ApplicationPort struct {
	// The port's name, also the Service port's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// The port number.
	// +kubebuilder:validation:Minimum=80
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}
