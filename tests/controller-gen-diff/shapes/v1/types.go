// Package v1 holds the Go twins of rust/src/shapes.rs: one field of every
// shape kubegen maps (scalars, Option vs value, lists, maps, enums,
// int-or-string, Quantity, Time, embedded resources, preserved fields) and
// every kubegen attribute that has a controller-gen marker. A field here
// and its Rust twin share name, documentation and markers.
// +groupName=shapes.cgdiff.example.com
// +versionName=v1
package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Shapes holds one field of every shape.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=sh;shp,categories=cgdiff;all
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Color",type="string",JSONPath=".spec.color"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".spec.replicas",description="Desired replicas",priority=1
// +kubebuilder:printcolumn:name="Ratio",type="number",JSONPath=".spec.ratio",format="double"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:selectablefield:JSONPath=".spec.color"
type Shapes struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ShapesSpec   `json:"spec"`
	Status ShapesStatus `json:"status,omitempty"`
}

// Shapes holds one field of every shape.
type ShapesSpec struct {
	// A 32-bit integer.
	Replicas int32 `json:"replicas"`
	// An optional 32-bit integer.
	// +optional
	MaybeReplicas *int32 `json:"maybeReplicas,omitempty"`
	// A 64-bit integer.
	Count int64 `json:"count"`
	// An optional 64-bit integer.
	// +optional
	MaybeCount *int64 `json:"maybeCount,omitempty"`
	// An unsigned 32-bit integer.
	Small uint32 `json:"small"`
	// A boolean.
	Enabled bool `json:"enabled"`
	// An optional boolean.
	// +optional
	Paused *bool `json:"paused,omitempty"`
	// A string.
	Name string `json:"name"`
	// An optional string.
	// +optional
	Nickname *string `json:"nickname,omitempty"`
	// A double-precision float.
	Ratio float64 `json:"ratio"`
	// An optional single-precision float.
	// +optional
	Weight *float32 `json:"weight,omitempty"`
	// A colour, a string enum.
	Color Color `json:"color"`
	// An optional colour.
	// +optional
	Accent *Color `json:"accent,omitempty"`
	// A colour narrowed by the field.
	// +kubebuilder:validation:Enum=Red;Green
	// +optional
	Primary *Color `json:"primary,omitempty"`
	// A list of strings.
	Tags []string `json:"tags"`
	// An optional list of integers.
	// +optional
	Numbers []int64 `json:"numbers,omitempty"`
	// A list of objects.
	Items []Item `json:"items"`
	// A list of lists.
	// +optional
	Matrix [][]int32 `json:"matrix,omitempty"`
	// A map of strings.
	Labels map[string]string `json:"labels"`
	// An optional map of objects.
	// +optional
	ItemsByName map[string]Item `json:"itemsByName,omitempty"`
	// A map of lists.
	// +optional
	Groups map[string][]string `json:"groups,omitempty"`
	// A nested object.
	Item Item `json:"item"`
	// An optional nested object.
	// +optional
	Extra *Item `json:"extra,omitempty"`
	// An integer or a string.
	Port intstr.IntOrString `json:"port"`
	// An optional integer or string.
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
	// A quantity.
	Memory resource.Quantity `json:"memory"`
	// An optional quantity.
	// +optional
	Cpu *resource.Quantity `json:"cpu,omitempty"`
	// A map of quantities.
	// +optional
	Limits map[string]resource.Quantity `json:"limits,omitempty"`
	// A time.
	Since metav1.Time `json:"since"`
	// An optional time.
	// +optional
	Until *metav1.Time `json:"until,omitempty"`
	// Bytes, base64 in JSON.
	// +optional
	Data []byte `json:"data,omitempty"`
	// An embedded resource.
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Template runtime.RawExtension `json:"template,omitempty"`
	// Any JSON value.
	// +optional
	Raw *apiextensionsv1.JSON `json:"raw,omitempty"`
	// An object that keeps unknown fields.
	// +optional
	Open *Open `json:"open,omitempty"`
	// Conditions, keyed by type.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// A 16-bit integer.
	Tiny int16 `json:"tiny"`
	// An unsigned 64-bit integer.
	// +optional
	Big *uint64 `json:"big,omitempty"`
	// An unsigned 8-bit integer.
	// +optional
	Octet *uint8 `json:"octet,omitempty"`
	// A set of strings, by type.
	// +listType=set
	// +optional
	Members []string `json:"members,omitempty"`
	// A value left out when empty.
	Alias string `json:"alias,omitempty"`
	// A count left out when zero.
	Spare int32 `json:"spare,omitempty"`
	// A list left out when empty.
	Extras []string `json:"extras,omitempty"`
	// Never serialized.
	Cache *string `json:"-"`
	Common `json:",inline"`
}

// Fields shared by several specs, embedded.
type Common struct {
	// Where it came from.
	Origin string `json:"origin"`
	// A remark.
	// +optional
	Remark *string `json:"remark,omitempty"`
}

// A colour.
// +kubebuilder:validation:Enum=Red;Green;Blue
type Color string

// One item.
type Item struct {
	// The item's name.
	Name string `json:"name"`
	// How many.
	// +optional
	Quantity *int32 `json:"quantity,omitempty"`
}

// An object that keeps unknown fields.
// +kubebuilder:pruning:PreserveUnknownFields
type Open struct {
	// A known field.
	// +optional
	Known *string `json:"known,omitempty"`
}

// The observed state of a Shapes.
type ShapesStatus struct {
	// Observed replicas.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// The label selector, for the scale subresource.
	// +optional
	Selector *string `json:"selector,omitempty"`
}

// Constraints holds one field per validation marker.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=constraintsets,singular=constraintset
type Constraints struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ConstraintsSpec `json:"spec"`
}

// Constraints holds one field per validation marker.
// +kubebuilder:validation:XValidation:rule="self.low <= self.high",message="low must not exceed high"
// +kubebuilder:validation:ExactlyOneOf=fromName;fromNumber
// +kubebuilder:validation:MinProperties=2
type ConstraintsSpec struct {
	// Bounded below and above.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	Low int32 `json:"low"`
	// Bounded exclusively, a multiple of 5.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:ExclusiveMaximum=true
	// +kubebuilder:validation:MultipleOf=5
	High int32 `json:"high"`
	// A string with lengths and a pattern.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9-]*$`
	Slug string `json:"slug"`
	// An e-mail address.
	// +kubebuilder:validation:Format=email
	// +optional
	Email *string `json:"email,omitempty"`
	// A default integer.
	// +kubebuilder:default=3
	// +optional
	Retries int32 `json:"retries,omitempty"`
	// A default string.
	// +kubebuilder:default="info"
	// +optional
	Level string `json:"level,omitempty"`
	// A default list.
	// +kubebuilder:default={"a","b"}
	// +optional
	Letters []string `json:"letters,omitempty"`
	// A default object.
	// +kubebuilder:default={"name":"first","quantity":1}
	// +optional
	FirstItem *Item `json:"firstItem,omitempty"`
	// A default boolean.
	// +kubebuilder:default=true
	// +optional
	Verbose *bool `json:"verbose,omitempty"`
	// A list with bounds and item constraints.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MinLength=2
	// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
	Words []string `json:"words"`
	// A set of strings.
	// +listType=set
	// +optional
	Unique []string `json:"unique,omitempty"`
	// An atomic list.
	// +listType=atomic
	// +optional
	Whole []string `json:"whole,omitempty"`
	// A list map keyed by name.
	// +listType=map
	// +listMapKey=name
	// +optional
	Entries []Item `json:"entries,omitempty"`
	// An atomic map.
	// +mapType=atomic
	// +kubebuilder:validation:MaxProperties=4
	// +optional
	Settings map[string]string `json:"settings,omitempty"`
	// An atomic struct.
	// +structType=atomic
	// +optional
	Pinned *Item `json:"pinned,omitempty"`
	// A field with a CEL rule.
	// +kubebuilder:validation:XValidation:rule="self.startsWith('v')",message="must start with v",reason=FieldValueInvalid
	// +kubebuilder:validation:XValidation:rule="size(self) < 10",messageExpression="'too long: ' + self"
	Version string `json:"version"`
	// Set once.
	// +k8s:immutable
	Owner string `json:"owner"`
	// A pointer made required.
	// +required
	Must *string `json:"must"`
	// A value made optional.
	// +optional
	Maybe string `json:"maybe"`
	// A nullable value.
	// +nullable
	// +optional
	Nothing *string `json:"nothing,omitempty"`
	// A titled value.
	// +kubebuilder:title="The title"
	// +kubebuilder:example="sample"
	// +optional
	Titled *string `json:"titled,omitempty"`
	// One of two sources.
	// +optional
	FromName *string `json:"fromName,omitempty"`
	// The other source.
	// +optional
	FromNumber *int32 `json:"fromNumber,omitempty"`
	// Anything at all.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Anything *apiextensionsv1.JSON `json:"anything,omitempty"`
	// With external documentation.
	// +kubebuilder:externalDocs:url="https://example.com/docs",description="More"
	// +optional
	Documented *string `json:"documented,omitempty"`
	// A list of enums.
	// +optional
	Palette []Color `json:"palette,omitempty"`
	// A list of quantities with a rule on each item.
	// +kubebuilder:validation:items:XValidation:rule="quantity(self).isGreaterThan(quantity('0'))",message="must be positive"
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Sizes []resource.Quantity `json:"sizes,omitempty"`
}

// Workload holds built-in Kubernetes types, as an operator's API does.
// +kubebuilder:object:root=true
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WorkloadSpec `json:"spec"`
}

// Workload holds built-in Kubernetes types, as an operator's API does.
type WorkloadSpec struct {
	// The pods to run.
	Template corev1.PodTemplateSpec `json:"template"`
	// A job to run.
	// +optional
	JobTemplate *batchv1.JobTemplateSpec `json:"jobTemplate,omitempty"`
	// Which pods are the workload's.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Resources of the workload as a whole.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// A Service in front of the pods.
	// +optional
	Service *corev1.ServiceSpec `json:"service,omitempty"`
	// Extra volumes.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// Where the pods may run.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// What the workload refers to.
	// +optional
	Owner *corev1.ObjectReference `json:"owner,omitempty"`
}

// Extras holds the markers whose CRDs are not installed on the plane (the
// apiserver refuses controller-gen's uniqueItems) and the resource markers
// the other kinds leave out.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:deprecatedversion:warning="shapes v1 Extras is going away"
// +kubebuilder:metadata:annotations="example.com/owner=team-a"
// +kubebuilder:metadata:labels="example.com/tier=test"
// +kubebuilder:printcolumn:name="Mode",type="string",JSONPath=".spec.mode"
// +kubebuilder:printcolumn:name="Count",type="integer",JSONPath=".spec.count",priority=1
// +kubebuilder:printcolumn:name="When",type="date",JSONPath=".spec.when"
// +kubebuilder:printcolumn:name="Share",type="number",JSONPath=".spec.share"
// +kubebuilder:printcolumn:name="On",type="boolean",JSONPath=".spec.on"
// +kubebuilder:printcolumn:name="Seen",type="integer",JSONPath=".status.seen"
type Extras struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ExtrasSpec   `json:"spec"`
	Status ExtrasStatus `json:"status,omitempty"`
}

// What was observed (a status without the status subresource).
type ExtrasStatus struct {
	// How often.
	// +optional
	Seen *int64 `json:"seen,omitempty"`
}

// Extras holds the markers the other kinds leave out.
// +kubebuilder:validation:XValidation:rule="!has(self.note) || self.note != 'bad'",message="the note is bad",fieldPath=".note",reason=FieldValueForbidden
type ExtrasSpec struct {
	// A mode.
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || oldSelf.value() != 'frozen' || self == 'frozen'",message="a frozen mode stays frozen",optionalOldSelf=true
	// +optional
	Mode *string `json:"mode,omitempty"`
	// A count.
	// +optional
	Count *int32 `json:"count,omitempty"`
	// When.
	// +optional
	When *metav1.Time `json:"when,omitempty"`
	// A share.
	// +optional
	Share *float64 `json:"share,omitempty"`
	// Whether on.
	// +optional
	On *bool `json:"on,omitempty"`
	// A note.
	// +optional
	Note *string `json:"note,omitempty"`
	// Unique items.
	// +kubebuilder:validation:UniqueItems=true
	// +optional
	Unique []string `json:"unique,omitempty"`
	// A duration, a string by its own marker.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// An integer or a string, by marker.
	// +kubebuilder:validation:XIntOrString
	// +optional
	Budget *intstr.IntOrString `json:"budget,omitempty"`
	// A percentage or a count, its string form constrained.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern=`^[0-9]+%$`
	// +kubebuilder:validation:MaxLength=4
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : true",message="not negative"
	// +optional
	Surge *intstr.IntOrString `json:"surge,omitempty"`
	// Choices.
	// +optional
	Choice *Choice `json:"choice,omitempty"`
	// A code whose field narrows the type's length.
	// +kubebuilder:validation:MaxLength=8
	// +optional
	Short *Code `json:"short,omitempty"`
	// A code whose field adds a pattern to the type's.
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	// +optional
	Letters *Code `json:"letters,omitempty"`
	// A list whose items carry a rule and bounds.
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=9
	// +kubebuilder:validation:items:ExclusiveMaximum=true
	// +kubebuilder:validation:items:MultipleOf=3
	// +optional
	Steps []int64 `json:"steps,omitempty"`
	// A map whose values carry bounds.
	// +kubebuilder:validation:MinProperties=1
	// +optional
	Weights map[string]int32 `json:"weights,omitempty"`
}

// A code.
// +kubebuilder:validation:MaxLength=12
// +kubebuilder:validation:Pattern=`^[a-z0-9]+$`
type Code string

// Choices: at most one of a and b, at least one of c and d.
// +kubebuilder:validation:AtMostOneOf=a;b
// +kubebuilder:validation:AtLeastOneOf=c;d
type Choice struct {
	// +optional
	A *string `json:"a,omitempty"`
	// +optional
	B *string `json:"b,omitempty"`
	// +optional
	C *string `json:"c,omitempty"`
	// +optional
	D *string `json:"d,omitempty"`
}

// Legacy has an unserved old version.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
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
