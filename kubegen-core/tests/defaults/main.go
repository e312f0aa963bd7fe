// Command defaultsdiff runs kube-apiserver's own defaulting of built-in
// objects, for kubegen-core's tests/defaults_differential.rs: the scheme
// of k8s.io/kubernetes v1.36.3 (pkg/api/legacyscheme with the install
// packages of the groups kubegen-core's defaults module covers, so every
// versioned group's generated RegisterDefaults: SetObjectDefaults_* over
// the SetDefaults_* functions and the +default markers), with every
// feature gate at its v1.36 default (k8s.io/kubernetes/pkg/features).
//
// Input, one JSON object a line: {"object": {...}} — decoded as the
// apiserver's JSON serializer decodes a request body (the versioned Go
// type of its apiVersion and kind, case-sensitive, unknown fields
// dropped), defaulted with legacyscheme.Scheme.Default, written back with
// encoding/json as the apiserver writes it — or {"zero": {"apiVersion",
// "kind"}}: the kind's Go zero value with its apiVersion and kind, written
// the same way. Output, one JSON line each: {"result": ...} or
// {"error": "..."}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime/schema"
	serjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
)

type request struct {
	Object json.RawMessage `json:"object"`
	Zero   *struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	} `json:"zero"`
}

var decoder = serjson.NewSerializerWithOptions(serjson.DefaultMetaFactory, legacyscheme.Scheme, legacyscheme.Scheme, serjson.SerializerOptions{})

func handle(req request) (out map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			out = map[string]any{"error": fmt.Sprint("panic: ", r)}
		}
	}()
	if req.Zero != nil {
		gvk := schema.FromAPIVersionAndKind(req.Zero.APIVersion, req.Zero.Kind)
		obj, err := legacyscheme.Scheme.New(gvk)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		return map[string]any{"result": obj}
	}
	obj, _, err := decoder.Decode(req.Object, nil, nil)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	legacyscheme.Scheme.Default(obj)
	return map[string]any{"result": obj}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var req request
		var answer map[string]any
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			answer = map[string]any{"error": "bad request: " + err.Error()}
		} else {
			answer = handle(req)
		}
		b, err := json.Marshal(answer)
		if err != nil {
			b, _ = json.Marshal(map[string]any{"error": "encode: " + err.Error()})
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
