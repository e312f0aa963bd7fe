// The apiserver's CEL parser, for kubegen-core's CEL differential test
// (tests/cel_differential.rs): the environment a CustomResourceDefinition's
// x-kubernetes-validations rules are compiled in (k8s.io/apiserver's base
// environment at its default compatibility version, stored expressions),
// with macro call tracking on so each macro prints as the call it was
// written as.
//
// Input on stdin, one JSON string (an expression) per line. Output on
// stdout, one JSON object per line, in order:
//
//	{"error": "...", "line": 1, "column": 5}  the first parse error
//	{"ast": "..."}                            the parsed expression
//
// The AST is printed as an S-expression, the same form kubegen's parser
// prints (kubegen_core::cel::Expr::sexpr): literals as `i:-1`, `u:1`,
// `d:<hex bits>`, `s:<hex bytes>`, `b:<hex bytes>`, `true`, `false`,
// `null`; `(. operand field)` selects; `(call fn - args...)` global calls
// and `(call fn target args...)` member calls, macros included; && and ||
// flattened into one call; `(list ...)`, `(map (entry k v)...)`,
// `(struct name (field f v)...)`, a `?` before an optional element.
package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	celschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"
)

// stdio is every mode's plumbing: standard input read line by line (up
// to 16 MiB a line) and an encoder writing one JSON line per answer
// (HTML left unescaped) to standard output; done, deferred, flushes it
// and panics if reading failed.
func stdio() (*bufio.Scanner, *json.Encoder, func()) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return in, enc, func() {
		if err := in.Err(); err != nil {
			panic(err)
		}
		if err := out.Flush(); err != nil {
			panic(err)
		}
	}
}

// The environment a CRD's new or changed rules compile in.
func newExpressions() *cel.Env {
	env, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Env(environment.NewExpressions)
	if err != nil {
		panic(err)
	}
	return env
}

// typeJSON is a cel-go type as kubegen's table reads it: a name, a
// {"param": name}, or {"name": ..., "params": [...]}.
func typeJSON(t *types.Type) any {
	if t.Kind() == types.TypeParamKind {
		return map[string]any{"param": t.TypeName()}
	}
	if len(t.Parameters()) == 0 {
		return t.TypeName()
	}
	ps := []any{}
	for _, p := range t.Parameters() {
		ps = append(ps, typeJSON(p))
	}
	return map[string]any{"name": t.TypeName(), "params": ps}
}

// functions prints every overload of the environment's functions, sorted,
// as kubegen_core::cel's function table (src/cel/functions.json).
func functions() {
	fns := newExpressions().Functions()
	names := []string{}
	for n := range fns {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []any{}
	for _, n := range names {
		for _, o := range fns[n].OverloadDecls() {
			args := []any{}
			for _, a := range o.ArgTypes() {
				args = append(args, typeJSON(a))
			}
			out = append(out, map[string]any{"function": n, "overload": o.ID(), "member": o.IsMemberFunction(), "args": args, "result": typeJSON(o.ResultType())})
		}
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}

// compile reads one schema per line (an openAPIV3Schema whose root carries
// x-kubernetes-validations) and prints, per rule, the apiserver's
// compilation result: {"error": ...} or {"cost": ..., "cardinality": ...,
// "messageCost": ...}.
func compile() {
	in, enc, done := stdio()
	defer done()
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	for in.Scan() {
		var v1 apiextensionsv1.JSONSchemaProps
		if err := json.Unmarshal(in.Bytes(), &v1); err != nil {
			panic(err)
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
			panic(err)
		}
		s, err := schema.NewStructural(&internal)
		if err != nil {
			enc.Encode(map[string]any{"schemaError": err.Error()})
			continue
		}
		results, err := celschema.Compile(s, model.SchemaDeclType(s, false), celconfig.PerCallLimit, base, celschema.NewExpressionsEnvLoader())
		if err != nil {
			enc.Encode(map[string]any{"schemaError": err.Error()})
			continue
		}
		answers := []any{}
		for _, r := range results {
			a := map[string]any{"cost": r.MaxCost, "cardinality": r.MaxCardinality, "messageCost": r.MessageExpressionMaxCost}
			if r.Error != nil {
				a = map[string]any{"error": r.Error.Detail}
			} else if r.MessageExpressionError != nil {
				a = map[string]any{"error": r.MessageExpressionError.Detail}
			}
			answers = append(answers, a)
		}
		enc.Encode(map[string]any{"results": answers})
	}
}

// crd reads one openAPIV3Schema per line, makes it the only version of a
// CustomResourceDefinition, and prints the apiserver's verdict on creating
// it (ValidateCustomResourceDefinition): {"errors": [{"field", "type",
// "detail"}...]}.
func crd() {
	in, enc, done := stdio()
	defer done()
	for in.Scan() {
		var s apiextensionsv1.JSONSchemaProps
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			panic(err)
		}
		v1 := apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "things.test.kubegen.dev"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "test.kubegen.dev",
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
				Scope: apiextensionsv1.NamespaceScoped,
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &s},
				}},
			},
			Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
		}
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
		var internal apiextensions.CustomResourceDefinition
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil); err != nil {
			panic(err)
		}
		errs := []any{}
		for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), &internal) {
			errs = append(errs, map[string]any{"field": e.Field, "type": string(e.Type), "detail": e.Detail})
		}
		enc.Encode(map[string]any{"errors": errs})
	}
}

// validateObjects reads lines {"schema": openAPIV3Schema, "namespaced":
// bool, "object": ...} and prints what the apiserver's create path does
// with the object, step by step as the CRD handler and the custom
// resource strategy run them (decoded as unstructured JSON; pruned with
// the unknown fields tracked; non-nullable nulls dropped; defaulted; the
// name generated from generateName, with a fixed suffix instead of a random
// one; the namespace "default" filled in for a namespaced kind; metadata,
// OpenAPI schema and list-type validation, then the x-kubernetes-validations
// rules unless an earlier error blocks them):
// {"unknown": [...], "errors": [<field.Error texts>], "stored": <object>}.
func validateObjects() {
	in, enc, done := stdio()
	defer done()
	for in.Scan() {
		var line struct {
			Schema     json.RawMessage `json:"schema"`
			Namespaced bool            `json:"namespaced"`
			Object     json.RawMessage `json:"object"`
			// An update: the object it replaces, as stored.
			Old json.RawMessage `json:"old"`
		}
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			panic(err)
		}
		var v1 apiextensionsv1.JSONSchemaProps
		if err := json.Unmarshal(line.Schema, &v1); err != nil {
			panic(err)
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
			panic(err)
		}
		ss, err := schema.NewStructural(&internal)
		if err != nil {
			enc.Encode(map[string]any{"schemaError": err.Error()})
			continue
		}
		var obj map[string]interface{}
		if err := utiljson.Unmarshal(line.Object, &obj); err != nil {
			panic(err)
		}
		meta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
		if err != nil {
			enc.Encode(map[string]any{"decodeError": err.Error()})
			continue
		}
		unknown = append(unknown, structuralpruning.PruneWithOptions(obj, ss, true, schema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, ss)
		// Embedded resources: type meta and metadata coerced, as the
		// request is decoded.
		fieldErr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, ss, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if fieldErr != nil {
			enc.Encode(map[string]any{"decodeError": fieldErr.Error()})
			continue
		}
		unknown = append(unknown, paths...)
		if foundMeta {
			if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
				panic(err)
			}
		}
		structuraldefaulting.Default(obj, ss)
		u := &unstructured.Unstructured{Object: obj}
		if len(line.Old) > 0 {
			enc.Encode(validateUpdate(ss, &internal, line.Namespaced, u, line.Old, unknown))
			continue
		}
		if u.GetName() == "" && u.GetGenerateName() != "" {
			base := u.GetGenerateName()
			if len(base) > 58 {
				base = base[:58]
			}
			u.SetName(base + "x2b4z")
		}
		if line.Namespaced && u.GetNamespace() == "" {
			u.SetNamespace("default")
		}
		if !line.Namespaced {
			// rest.BeforeCreate clears a cluster-scoped object's namespace.
			u.SetNamespace("")
		}
		var errs field.ErrorList
		errs = append(errs, apimachineryvalidation.ValidateObjectMetaAccessor(u, line.Namespaced, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
		validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
		if err != nil {
			panic(err)
		}
		errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), validator)...)
		errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, ss, false)...)
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ss, u.Object)...)
		// The x-kubernetes-validations rules, as the custom resource
		// strategy runs them: none when an earlier error blocks them
		// (hasBlockingErr), with one error saying so.
		result := rulesAndResult(ss, errs, u, nil, nil, unknown)
		delete(result, "warnings")
		enc.Encode(result)
	}
}

// embedded reads lines {"value": <any JSON>} and treats each value as an
// embedded resource (x-kubernetes-embedded-resource with unknown fields
// preserved) at spec.template, as the apiserver does on a request:
// coerced (schemaobjectmeta.CoerceWithOptions, invalid metadata an
// error, unknown metadata fields reported), then validated
// (schemaobjectmeta.Validate). It prints {"coerceError": "..."} or
// {"unknown": [...], "coerced": <value>, "errors": [...]}.
func embedded() {
	in, enc, done := stdio()
	defer done()
	s := &schema.Structural{
		Generic:    schema.Generic{Type: "object"},
		Extensions: schema.Extensions{XEmbeddedResource: true, XPreserveUnknownFields: true},
	}
	root := &schema.Structural{
		Generic: schema.Generic{Type: "object"},
		Properties: map[string]schema.Structural{"spec": {
			Generic:    schema.Generic{Type: "object"},
			Properties: map[string]schema.Structural{"template": *s},
		}},
	}
	for in.Scan() {
		var line struct {
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			panic(err)
		}
		var value interface{}
		if err := utiljson.Unmarshal(line.Value, &value); err != nil {
			panic(err)
		}
		obj := map[string]interface{}{"spec": map[string]interface{}{"template": value}}
		fieldErr, unknown := schemaobjectmeta.CoerceWithOptions(nil, obj, root, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if fieldErr != nil {
			enc.Encode(map[string]any{"coerceError": fieldErr.Error()})
			continue
		}
		texts := []string{}
		for _, e := range schemaobjectmeta.Validate(nil, obj, root, false) {
			texts = append(texts, e.Error())
		}
		if unknown == nil {
			unknown = []string{}
		}
		enc.Encode(map[string]any{"unknown": unknown, "coerced": obj["spec"].(map[string]interface{})["template"], "errors": texts})
	}
}

// warnings collects what the apiserver returns as warnings.
type warnings struct{ texts []string }

func (w *warnings) AddWarning(_, text string) { w.texts = append(w.texts, text) }

// validateUpdate is the custom resource strategy's ValidateUpdate of u
// replacing old (read as from storage: pruned and defaulted), with
// validation ratcheting on (CRDValidationRatcheting is on by default):
// {"unknown": [...], "errors": [...], "warnings": [...], "stored": ...,
// "celCost": ...}. Both objects keep their own metadata: the caller gives
// them the same name and namespace, as an update of one object has.
func validateUpdate(ss *schema.Structural, internal *apiextensions.JSONSchemaProps, namespaced bool, u *unstructured.Unstructured, oldJSON json.RawMessage, unknown []string) map[string]any {
	var oldObj map[string]interface{}
	if err := utiljson.Unmarshal(oldJSON, &oldObj); err != nil {
		panic(err)
	}
	// Read as from storage: malformed metadata dropped.
	if meta, found, err := schemaobjectmeta.GetObjectMeta(oldObj, true); err == nil && found {
		if err := schemaobjectmeta.SetObjectMeta(oldObj, meta); err != nil {
			panic(err)
		}
	}
	structuralpruning.PruneWithOptions(oldObj, ss, true, schema.UnknownFieldPathOptions{})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(oldObj, ss)
	schemaobjectmeta.Coerce(nil, oldObj, ss, false, true)
	structuraldefaulting.Default(oldObj, ss)
	uOld := &unstructured.Unstructured{Object: oldObj}
	for _, x := range []*unstructured.Unstructured{u, uOld} {
		// rest.BeforeUpdate fills in the resource version of an
		// unconditional update.
		x.SetResourceVersion("1")
		if !namespaced {
			x.SetNamespace("")
		}
	}
	correlated := common.NewCorrelatedObject(u.Object, uOld.Object, &model.Structural{Structural: ss})
	var errs field.ErrorList
	errs = append(errs, apimachineryvalidation.ValidateObjectMetaAccessorUpdate(u, uOld, field.NewPath("metadata"))...)
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		panic(err)
	}
	errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, u.UnstructuredContent(), uOld.UnstructuredContent(), validator, apiservervalidation.WithRatcheting(correlated))...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, ss, false)...)
	if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, ss, uOld.Object); len(oldErrs) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ss, u.Object)...)
	}
	return rulesAndResult(ss, errs, u, uOld.Object, correlated, unknown)
}

// rulesAndResult runs the x-kubernetes-validations rules as the custom
// resource strategy runs them (none when an earlier error blocks them,
// with one error saying so; with the old object and ratcheting on
// update) and gives the result: {"unknown", "errors", "warnings",
// "stored", "celCost"}, the cost the rules charged to the object's budget
// absent when the budget ran out or a call went over its limit.
func rulesAndResult(ss *schema.Structural, errs field.ErrorList, u *unstructured.Unstructured, old map[string]interface{}, correlated *common.CorrelatedObject, unknown []string) map[string]any {
	var celCost any = int64(0)
	recorder := &warnings{}
	if celValidator := celschema.NewValidator(ss, true, celconfig.PerCallLimit); celValidator != nil {
		if blocked := blockingErr(errs); blocked != nil {
			errs = append(errs, blocked)
		} else {
			ctx := warning.WithWarningRecorder(context.Background(), recorder)
			var opts []celschema.Option
			var oldObj interface{}
			if correlated != nil {
				opts = append(opts, celschema.WithRatcheting(correlated))
				oldObj = old
			}
			ruleErrs, remaining := celValidator.Validate(ctx, nil, ss, u.Object, oldObj, celconfig.RuntimeCELCostBudget, opts...)
			errs = append(errs, ruleErrs...)
			if remaining >= 0 {
				celCost = celconfig.RuntimeCELCostBudget - remaining
			} else {
				celCost = nil
			}
		}
	}
	texts := []string{}
	for _, e := range errs {
		texts = append(texts, e.Error())
	}
	if unknown == nil {
		unknown = []string{}
	}
	sort.Strings(unknown)
	if recorder.texts == nil {
		recorder.texts = []string{}
	}
	return map[string]any{"unknown": unknown, "errors": texts, "warnings": recorder.texts, "stored": u.Object, "celCost": celCost}
}

// blockingErr is the custom resource strategy's hasBlockingErr: the error
// it adds instead of evaluating rules when an earlier error blocks them.
func blockingErr(errs field.ErrorList) *field.Error {
	for _, err := range errs {
		if err.Type == field.ErrorTypeNotSupported || err.Type == field.ErrorTypeRequired || err.Type == field.ErrorTypeTooLong || err.Type == field.ErrorTypeTooMany || err.Type == field.ErrorTypeTypeInvalid {
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}

// evalExprs reads lines {"expr": "..."}, compiles each in the
// environment of newExpressions, evaluates it without variables, and
// prints {"value": <canonical text>}, {"error": <evaluation error>} or
// {"compileError": <issues>}. The canonical text (see canonical) is the
// one kubegen's differential test (tests/cel_eval_differential.rs) prints
// of its own values.
func evalExprs() {
	env := newExpressions()
	in, enc, done := stdio()
	defer done()
	for in.Scan() {
		var line struct {
			Expr string `json:"expr"`
		}
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			panic(err)
		}
		checked, iss := env.Compile(line.Expr)
		if iss.Err() != nil {
			enc.Encode(map[string]any{"compileError": iss.Err().Error()})
			continue
		}
		prg, err := env.Program(checked)
		if err != nil {
			enc.Encode(map[string]any{"compileError": err.Error()})
			continue
		}
		v, _, err := prg.Eval(map[string]any{})
		if err != nil {
			enc.Encode(map[string]any{"error": err.Error()})
			continue
		}
		enc.Encode(map[string]any{"value": canonical(v)})
	}
}

// canonical prints a CEL value for comparison: `null`, `true`, `int:5`,
// `uint:5`, `double:<strconv 'g' -1>`, `string:<Go %q>`, `bytes:<Go %q>`,
// `duration:<nanoseconds>`, `timestamp:<Unix seconds>.<nanoseconds>`,
// `type:<name>`, `optional:none`, `optional:<value>`, `[a, b]`, `{k: v}`
// with entries sorted by their text, and `<type name>` for the opaque
// types (quantities, URLs, formats, IPs, CIDRs, versions).
func canonical(v ref.Val) string {
	switch x := v.(type) {
	case types.Null:
		return "null"
	case types.Bool:
		return fmt.Sprintf("%t", bool(x))
	case types.Int:
		return fmt.Sprintf("int:%d", int64(x))
	case types.Uint:
		return fmt.Sprintf("uint:%d", uint64(x))
	case types.Double:
		return "double:" + strconv.FormatFloat(float64(x), 'g', -1, 64)
	case types.String:
		return fmt.Sprintf("string:%q", string(x))
	case types.Bytes:
		return fmt.Sprintf("bytes:%q", []byte(x))
	case types.Duration:
		return fmt.Sprintf("duration:%d", x.Duration.Nanoseconds())
	case types.Timestamp:
		return fmt.Sprintf("timestamp:%d.%09d", x.Time.Unix(), x.Time.Nanosecond())
	case *types.Type:
		return "type:" + x.TypeName()
	case *types.Optional:
		if !x.HasValue() {
			return "optional:none"
		}
		return "optional:" + canonical(x.GetValue())
	case traits.Lister:
		parts := []string{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			parts = append(parts, canonical(it.Next()))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case traits.Mapper:
		parts := []string{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			parts = append(parts, canonical(k)+": "+canonical(x.Get(k)))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return "<" + v.Type().TypeName() + ">"
	}
}

type printer struct {
	macros map[int64]ast.Expr
	out    strings.Builder
}

func (p *printer) flatten(fn string, e ast.Expr, terms []ast.Expr) []ast.Expr {
	if _, isMacro := p.macros[e.ID()]; !isMacro && e.Kind() == ast.CallKind {
		c := e.AsCall()
		if c.FunctionName() == fn && !c.IsMemberFunction() {
			for _, a := range c.Args() {
				terms = p.flatten(fn, a, terms)
			}
			return terms
		}
	}
	return append(terms, e)
}

func (p *printer) expr(e ast.Expr) {
	if m, ok := p.macros[e.ID()]; ok && e.ID() != 0 {
		p.expr(m)
		return
	}
	w := &p.out
	switch e.Kind() {
	case ast.LiteralKind:
		switch v := e.AsLiteral().(type) {
		case types.Int:
			fmt.Fprintf(w, "i:%d", int64(v))
		case types.Uint:
			fmt.Fprintf(w, "u:%d", uint64(v))
		case types.Double:
			fmt.Fprintf(w, "d:%016x", math.Float64bits(float64(v)))
		case types.String:
			fmt.Fprintf(w, "s:%s", hex.EncodeToString([]byte(string(v))))
		case types.Bytes:
			fmt.Fprintf(w, "b:%s", hex.EncodeToString([]byte(v)))
		case types.Bool:
			fmt.Fprintf(w, "%t", bool(v))
		case types.Null:
			w.WriteString("null")
		default:
			fmt.Fprintf(w, "?literal %T", v)
		}
	case ast.IdentKind:
		w.WriteString(e.AsIdent())
	case ast.SelectKind:
		s := e.AsSelect()
		w.WriteString("(. ")
		p.expr(s.Operand())
		fmt.Fprintf(w, " %s)", s.FieldName())
	case ast.CallKind:
		c := e.AsCall()
		args := c.Args()
		if (c.FunctionName() == "_&&_" || c.FunctionName() == "_||_") && !c.IsMemberFunction() {
			args = p.flatten(c.FunctionName(), e, nil)
		}
		fmt.Fprintf(w, "(call %s ", c.FunctionName())
		if c.IsMemberFunction() {
			p.expr(c.Target())
		} else {
			w.WriteString("-")
		}
		for _, a := range args {
			w.WriteString(" ")
			p.expr(a)
		}
		w.WriteString(")")
	case ast.ListKind:
		l := e.AsList()
		w.WriteString("(list")
		for i, el := range l.Elements() {
			w.WriteString(" ")
			if l.IsOptional(int32(i)) {
				w.WriteString("?")
			}
			p.expr(el)
		}
		w.WriteString(")")
	case ast.MapKind:
		w.WriteString("(map")
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			w.WriteString(" (entry ")
			if me.IsOptional() {
				w.WriteString("?")
			}
			p.expr(me.Key())
			w.WriteString(" ")
			p.expr(me.Value())
			w.WriteString(")")
		}
		w.WriteString(")")
	case ast.StructKind:
		s := e.AsStruct()
		fmt.Fprintf(w, "(struct %s", s.TypeName())
		for _, f := range s.Fields() {
			sf := f.AsStructField()
			w.WriteString(" (field ")
			if sf.IsOptional() {
				w.WriteString("?")
			}
			fmt.Fprintf(w, "%s ", sf.Name())
			p.expr(sf.Value())
			w.WriteString(")")
		}
		w.WriteString(")")
	default:
		fmt.Fprintf(w, "?kind %v", e.Kind())
	}
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "functions":
			functions()
		case "compile":
			compile()
		case "crd":
			crd()
		case "validate":
			validateObjects()
		case "eval":
			evalExprs()
		case "embedded":
			embedded()
		default:
			panic("unknown mode " + os.Args[1])
		}
		return
	}
	env, err := newExpressions().Extend(cel.EnableMacroCallTracking())
	if err != nil {
		panic(err)
	}
	in, enc, done := stdio()
	defer done()
	for in.Scan() {
		var expr string
		if err := json.Unmarshal(in.Bytes(), &expr); err != nil {
			panic(err)
		}
		parsed, iss := env.Parse(expr)
		if iss.Err() != nil {
			first := iss.Errors()[0]
			enc.Encode(map[string]any{
				"error":  first.Message,
				"line":   first.Location.Line(),
				"column": first.Location.Column() + 1,
			})
			continue
		}
		p := &printer{macros: parsed.NativeRep().SourceInfo().MacroCalls()}
		p.expr(parsed.NativeRep().Expr())
		enc.Encode(map[string]any{"ast": p.out.String()})
	}
}
