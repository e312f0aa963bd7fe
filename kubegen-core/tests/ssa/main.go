// Command ssadiff runs kube-apiserver's field manager for custom resources
// (managedfields.NewDefaultCRDFieldManager, with the type converter the CRD
// handler builds) on sequences of updates and applies: one JSON case per
// line on stdin, one JSON answer per line on stdout.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

type step struct {
	Op          string                 `json:"op"`
	Object      map[string]interface{} `json:"object"`
	Manager     string                 `json:"manager"`
	Force       bool                   `json:"force"`
	Subresource string                 `json:"subresource"`
}

type testCase struct {
	Schema            json.RawMessage        `json:"schema"`
	Group             string                 `json:"group"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	StatusSubresource bool                   `json:"statusSubresource"`
	Live              map[string]interface{} `json:"live"`
	Steps             []step                 `json:"steps"`
}

type stepResult struct {
	Object interface{}            `json:"object,omitempty"`
	Fields []string               `json:"fields,omitempty"`
	Error  map[string]interface{} `json:"error,omitempty"`
}

type answer struct {
	Steps []stepResult `json:"steps,omitempty"`
	Setup string       `json:"setup,omitempty"`
}

type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]interface{}{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

type nopDefaulter struct{}

func (nopDefaulter) Default(runtime.Object) {}

// managers builds the field managers of the main resource and of status
// as the CRD handler does (scopeWithFieldManager).
func managers(c *testCase) (main, status *managedfields.FieldManager, err error) {
	var props apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(c.Schema, &props); err != nil {
		return nil, nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + c.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: c.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: c.Kind, ListKind: c.Kind + "List",
			},
			Scope:      apiextensionsv1.NamespaceScoped,
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: c.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props},
			}},
		},
	}
	if c.StatusSubresource {
		crd.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{
			Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
		}
	}
	// buildOpenAPIModelsForApply, with an empty static spec.
	static := &spec3.OpenAPI{
		Version:    "3.0.0",
		Info:       &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes CRD Swagger", Version: "v0.1.0"}},
		Components: &spec3.Components{Schemas: map[string]*spec.Schema{}},
	}
	specs := []*spec3.OpenAPI{static}
	for _, v := range crd.Spec.Versions {
		s, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{})
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, s)
	}
	merged, err := builder.MergeSpecsV3(specs...)
	if err != nil {
		return nil, nil, err
	}
	tc, err := managedfields.NewTypeConverter(merged.Components.Schemas, crd.Spec.PreserveUnknownFields)
	if err != nil {
		return nil, nil, err
	}
	factory, err := conversion.NewCRConverterFactory(nil, nil)
	if err != nil {
		return nil, nil, err
	}
	safe, _, err := factory.NewConverter(crd)
	if err != nil {
		return nil, nil, err
	}
	gv := schema.GroupVersion{Group: c.Group, Version: c.Version}
	kind := gv.WithKind(c.Kind)
	mainReset := map[fieldpath.APIVersion]*fieldpath.Set{}
	if c.StatusSubresource {
		mainReset[fieldpath.APIVersion(gv.String())] = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	}
	main, err = managedfields.NewDefaultCRDFieldManager(tc, safe, nopDefaulter{}, creater{}, kind, gv, "",
		fieldpath.NewExcludeFilterSetMap(mainReset))
	if err != nil {
		return nil, nil, err
	}
	statusReset := map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(gv.String()): fieldpath.NewSet(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec")),
	}
	status, err = managedfields.NewDefaultCRDFieldManager(tc, safe, nopDefaulter{}, creater{}, kind, gv, "status",
		fieldpath.NewExcludeFilterSetMap(statusReset))
	return main, status, err
}

func statusOf(err error) map[string]interface{} {
	out := map[string]interface{}{}
	if s, ok := err.(apierrors.APIStatus); ok {
		st := s.Status()
		out["code"] = st.Code
		out["reason"] = string(st.Reason)
		out["message"] = st.Message
		causes := []interface{}{}
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				causes = append(causes, map[string]interface{}{"type": string(c.Type), "message": c.Message, "field": c.Field})
			}
		}
		// Causes come in Go's map order of managers: put them in the
		// order the message lists the managers (sorted).
		sort.SliceStable(causes, func(i, j int) bool {
			return managerIndex(st.Message, causes[i]) < managerIndex(st.Message, causes[j])
		})
		out["causes"] = causes
		return out
	}
	out["code"] = 500
	out["reason"] = ""
	out["message"] = err.Error()
	out["causes"] = []interface{}{}
	return out
}

func managerIndex(message string, cause interface{}) int {
	m := cause.(map[string]interface{})["message"].(string)
	return strings.Index(message, "conflicts with "+strings.TrimPrefix(m, "conflict with ")+":")
}

// logical is the time the Rust side is given for step k.
func logical(k int) metav1.Time {
	return metav1.NewTime(time.Date(2020, 1, 1, 0, k, 0, 0, time.UTC))
}

// normalise puts the logical time of this step on every entry the step
// wrote (real time now), sorts entries as the apiserver does, and
// returns each entry's fieldsV1 as structured-merge-diff writes it.
func normalise(u *unstructured.Unstructured, k int, start time.Time) []string {
	entries := u.GetManagedFields()
	if entries == nil {
		return nil
	}
	for i := range entries {
		if entries[i].Time != nil && !entries[i].Time.Time.Before(start.Add(-time.Second).Truncate(time.Second)) {
			t := logical(k)
			entries[i].Time = &t
		}
	}
	sort.Slice(entries, func(i, j int) bool {
		p, q := entries[i], entries[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		ps, qs := int64(0), int64(0)
		if p.Time != nil {
			ps = p.Time.Unix()
		}
		if q.Time != nil {
			qs = q.Time.Unix()
		}
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
	u.SetManagedFields(entries)
	var raw []string
	for _, e := range entries {
		s := fieldpath.NewSet()
		if e.FieldsV1 != nil {
			if err := s.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))); err != nil {
				raw = append(raw, "error: "+err.Error())
				continue
			}
		}
		b, err := s.ToJSON()
		if err != nil {
			raw = append(raw, "error: "+err.Error())
			continue
		}
		raw = append(raw, string(b))
	}
	return raw
}

func run(c *testCase) answer {
	main, status, err := managers(c)
	if err != nil {
		return answer{Setup: err.Error()}
	}
	gvk := schema.GroupVersionKind{Group: c.Group, Version: c.Version, Kind: c.Kind}
	var live runtime.Object
	if c.Live != nil {
		live = &unstructured.Unstructured{Object: c.Live}
	} else {
		live, _ = creater{}.New(gvk)
	}
	var out answer
	for k, s := range c.Steps {
		fm := main
		if s.Subresource == "status" {
			fm = status
		}
		start := time.Now()
		var obj runtime.Object
		var err error
		switch s.Op {
		case "update":
			obj = fm.UpdateNoErrors(live, &unstructured.Unstructured{Object: s.Object}, s.Manager)
		case "apply":
			obj, err = fm.Apply(live, &unstructured.Unstructured{Object: s.Object}, s.Manager, s.Force)
		default:
			err = fmt.Errorf("unknown op %q", s.Op)
		}
		if err != nil {
			out.Steps = append(out.Steps, stepResult{Error: statusOf(err)})
			continue
		}
		u := obj.(*unstructured.Unstructured)
		fields := normalise(u, k+1, start)
		out.Steps = append(out.Steps, stepResult{Object: u.Object, Fields: fields})
		// The next step sees this object (JSON round trip: what etcd holds).
		b, _ := json.Marshal(u.Object)
		next := &unstructured.Unstructured{}
		if err := next.UnmarshalJSON(b); err != nil {
			out.Steps = append(out.Steps, stepResult{Error: statusOf(err)})
			return out
		}
		live = next
	}
	return out
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for in.Scan() {
		var c testCase
		var ans answer
		d := json.NewDecoder(strings.NewReader(in.Text()))
		d.UseNumber()
		if err := d.Decode(&c); err != nil {
			ans = answer{Setup: err.Error()}
		} else {
			c.Live = fromJSON(c.Live).(map[string]interface{})
			for i := range c.Steps {
				c.Steps[i].Object = fromJSON(c.Steps[i].Object).(map[string]interface{})
			}
			ans = run(&c)
		}
		b, err := json.Marshal(ans)
		if err != nil {
			b, _ = json.Marshal(answer{Setup: err.Error()})
		}
		w.Write(b)
		w.WriteByte('\n')
	}
}

// fromJSON turns json.Numbers into int64 or float64 as the apiserver's
// decoding does.
func fromJSON(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		if t == nil {
			return t
		}
		for k, x := range t {
			t[k] = fromJSON(x)
		}
		return t
	case []interface{}:
		for i, x := range t {
			t[i] = fromJSON(x)
		}
		return t
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}
