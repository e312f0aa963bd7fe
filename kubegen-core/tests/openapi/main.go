// Command openapidiff is the oracle of kubegen's differential test of
// kubegen_core::validate::openapi (tests/openapi_differential.rs): the
// apiserver's OpenAPI schema validation of custom resources, run from the
// Go module proxy.
//
// Each stdin line is {"schema": <openAPIV3Schema>, "object": <JSON>}. The
// schema is decoded as an apiextensions.k8s.io/v1 JSONSchemaProps,
// converted to the internal version, and handed to
// validation.NewSchemaValidator (the default compatibility version's
// formats); the object is decoded as the apiserver decodes unstructured
// JSON (integers that fit as int64, other numbers float64) and validated by
// validation.ValidateCustomResource. Each answer is one stdout line:
// {"errors": [{"type", "field", "detail", "text"}...]}, or {"panic": ...}
// when kube-openapi panics.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

type input struct {
	Schema json.RawMessage `json:"schema"`
	Object json.RawMessage `json:"object"`
}

type fieldError struct {
	Type   string `json:"type"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
	Text   string `json:"text"`
}

type answer struct {
	Errors []fieldError `json:"errors"`
	Panic  string       `json:"panic,omitempty"`
	Error  string       `json:"error,omitempty"`
}

func run(line []byte) (a answer) {
	a.Errors = []fieldError{}
	defer func() {
		if r := recover(); r != nil {
			a.Panic = fmt.Sprint(r)
		}
	}()
	var in input
	if err := json.Unmarshal(line, &in); err != nil {
		a.Error = "input: " + err.Error()
		return a
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(in.Schema, &v1); err != nil {
		a.Error = "schema: " + err.Error()
		return a
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		a.Error = "convert: " + err.Error()
		return a
	}
	validator, _, err := validation.NewSchemaValidator(&internal)
	if err != nil {
		a.Error = "validator: " + err.Error()
		return a
	}
	var object interface{}
	if err := utiljson.Unmarshal(in.Object, &object); err != nil {
		a.Error = "object: " + err.Error()
		return a
	}
	for _, e := range validation.ValidateCustomResource(nil, object, validator) {
		a.Errors = append(a.Errors, fieldError{
			Type:   string(e.Type),
			Field:  e.Field,
			Detail: e.Detail,
			Text:   e.Error(),
		})
	}
	return a
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if err := enc.Encode(run(line)); err != nil {
				panic(err)
			}
		}
		if err != nil {
			break
		}
	}
}
