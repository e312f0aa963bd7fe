// Command patchdiff applies JSON, merge and strategic merge patches with
// the apiserver's own code (k8s.io/apiserver v0.36.3's
// endpoints/handlers/patch.go, mirrored step for step: the strict decoding
// the field validation directive asks for, gopkg.in/evanphx/json-patch.v4
// with the apiserver's copy limit, strategicpatch.StrategicMergeMapPatch
// over the versioned Go type, and the errors' classification), for
// kubegen-core's tests/patch_differential.rs.
//
// Input, one JSON object a line: {"type": "json"|"merge"|"smp",
// "object": {...}, "patch": "<request body>", "validation":
// "Ignore"|"Warn"|"Strict"}. The object is decoded into its Go type
// (from apiVersion and kind) and written back, as the apiserver holds it.
// Output, one JSON line each: {"original": <that object>, "result":
// <patched object>, "strictErrors": [...]}, or {"original": ...,
// "status": {"code", "reason", "message", "details"}}, or {"panic":
// "..."}; a strategic merge patch whose outcome depends on Go's random map
// order {"alternatives": [those answers]}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"kubegen.test/patchdiff/handlers"
)

type request struct {
	Type       string          `json:"type"`
	Object     json.RawMessage `json:"object"`
	Patch      string          `json:"patch"`
	Validation string          `json:"validation"`
}

func handle(req request) (out map[string]interface{}) {
	out = map[string]interface{}{}
	defer func() {
		if r := recover(); r != nil {
			out = map[string]interface{}{"original": out["original"], "panic": fmt.Sprint(r)}
		}
	}()
	var tm metav1.TypeMeta
	if err := json.Unmarshal(req.Object, &tm); err != nil {
		panic(err)
	}
	gvk := tm.GroupVersionKind()
	obj, err := clientgoscheme.Scheme.New(gvk)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(req.Object, obj); err != nil {
		return map[string]interface{}{"objectError": err.Error()}
	}
	originalJS, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	out["original"] = json.RawMessage(originalJS)
	directive := req.Validation
	var result []byte
	var strictErrs []error
	if req.Type == "smp" {
		originalMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			panic(err)
		}
		reference, _ := clientgoscheme.Scheme.New(gvk)
		var patched map[string]interface{}
		patched, strictErrs, err = handlers.StrategicPatch(directive, originalMap, []byte(req.Patch), reference)
		if err == nil {
			result, err = json.Marshal(patched)
		}
		if err != nil {
			out["status"] = status(err)
			return out
		}
	} else {
		result, strictErrs, err = handlers.ApplyJSPatch(req.Type, directive, []byte(req.Patch), originalJS)
		if err != nil {
			out["status"] = status(err)
			return out
		}
	}
	// A number no float64 holds (1e400) stays in the document as written;
	// decoding it into the type fails later. Say so instead of writing it.
	var decoded interface{}
	if err := json.Unmarshal(result, &decoded); err != nil {
		out["resultError"] = err.Error()
		return out
	}
	out["result"] = json.RawMessage(result)
	msgs := []string{}
	for _, e := range strictErrs {
		msgs = append(msgs, e.Error())
	}
	out["strictErrors"] = msgs
	return out
}

func status(err error) map[string]interface{} {
	s := responsewriters.ErrorToAPIStatus(err)
	return map[string]interface{}{"code": s.Code, "reason": string(s.Reason), "message": s.Message, "details": s.Details != nil}
}

func main() {
	// The apiserver logs the errors it did not classify; not wanted here.
	utilruntime.ErrorHandlers = nil
	// The apiserver's --max-request-bytes default sets the copy limit
	// (k8s.io/apiserver/pkg/server/config.go, JSONPatchMaxCopyBytes).
	jsonpatch.AccumulatedCopySizeLimit = 3 * 1024 * 1024
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			panic(err)
		}
		// Go walks maps in random order, which can decide a strategic
		// merge patch's outcome: every outcome seen in a few runs.
		runs := 1
		if req.Type == "smp" {
			runs = 6
		}
		var first []byte
		seen := map[string]bool{}
		var alternatives []json.RawMessage
		for i := 0; i < runs; i++ {
			b, err := json.Marshal(handle(req))
			if err != nil {
				panic(err)
			}
			if first == nil {
				first = b
			}
			if !seen[string(b)] {
				seen[string(b)] = true
				alternatives = append(alternatives, b)
			}
		}
		b := first
		if len(alternatives) > 1 {
			b, _ = json.Marshal(map[string]interface{}{"alternatives": alternatives})
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := in.Err(); err != nil {
		panic(err)
	}
}
