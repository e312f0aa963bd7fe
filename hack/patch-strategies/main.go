// Command patch-strategies writes kubegen-core/src/patch/strategies.json:
// the strategic-merge-patch metadata of every built-in Kubernetes type as
// the apiserver reads it (strategicpatch.NewPatchMetaFromStruct over the Go
// struct, i.e. the `patchStrategy` and `patchMergeKey` struct tags), keyed
// by OpenAPI definition names, and every registered kind's root type.
//
// Usage: go run . > ../../kubegen-core/src/patch/strategies.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	forkedjson "k8s.io/apimachinery/third_party/forked/golang/json"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
)

// definitionName names a Go named type as the Kubernetes OpenAPI document
// does: k8s.io/api/core/v1.PodSpec is io.k8s.api.core.v1.PodSpec.
func definitionName(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	host := strings.Split(parts[0], ".")
	for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
		host[i], host[j] = host[j], host[i]
	}
	return strings.Join(append(host, parts[1:]...), ".") + "." + t.Name()
}

type generator struct {
	types map[string]map[string]any
	queue []reflect.Type
}

// typeExpr writes a field's Go type: `*T`, `[]T`, `[N]T`, `map[K]V`, a
// struct as its definition name, anything else as its reflect kind.
func (g *generator) typeExpr(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + g.typeExpr(t.Elem())
	case reflect.Slice:
		return "[]" + g.typeExpr(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), g.typeExpr(t.Elem()))
	case reflect.Map:
		return "map[" + g.typeExpr(t.Key()) + "]" + g.typeExpr(t.Elem())
	case reflect.Struct:
		name := definitionName(t)
		if _, ok := g.types[name]; !ok {
			g.types[name] = nil
			g.queue = append(g.queue, t)
		}
		return name
	default:
		return t.Kind().String()
	}
}

// jsonNames lists the JSON names encoding/json gives a struct's fields, in
// its order (embedded structs without a name inlined where they stand).
func jsonNames(t reflect.Type, depth int, seen map[string]int, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			jsonNames(ft, depth+1, seen, out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if d, ok := seen[name]; ok && d <= depth {
			continue
		}
		seen[name] = depth
		*out = append(*out, name)
	}
}

func (g *generator) describe(t reflect.Type) map[string]any {
	var names []string
	jsonNames(t, 0, map[string]int{}, &names)
	fields := [][]string{}
	for _, name := range names {
		ft, strategies, mergeKey, err := forkedjson.LookupPatchMetadataForStruct(t, name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s.%s: %v\n", t, name, err)
			os.Exit(1)
		}
		fields = append(fields, []string{name, g.typeExpr(ft), strings.Join(strategies, ","), mergeKey})
	}
	return map[string]any{"go": t.Name(), "fields": fields}
}

func main() {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme,
		apiregistrationv1.AddToScheme, apiregistrationv1beta1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	g := &generator{types: map[string]map[string]any{}}
	kinds := map[string]map[string]string{}
	for gvk, t := range scheme.AllKnownTypes() {
		// The meta types every group version registers (options, Status,
		// WatchEvent) and lists are no patch targets.
		if strings.HasPrefix(t.PkgPath(), "k8s.io/apimachinery/") || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		gv := gvk.GroupVersion().String()
		if kinds[gv] == nil {
			kinds[gv] = map[string]string{}
		}
		kinds[gv][gvk.Kind] = g.typeExpr(t)
	}
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		g.types[definitionName(t)] = g.describe(t)
	}
	out := map[string]any{
		"provenance": map[string]string{
			"generator": "hack/patch-strategies",
			"source":    "forkedjson.LookupPatchMetadataForStruct (what strategicpatch.NewPatchMetaFromStruct reads) over the Go types registered by k8s.io/client-go, apiextensions-apiserver and kube-aggregator v0.36.3",
		},
		"kinds": kinds,
		"types": g.types,
	}
	// One type per line, sorted, so that a change reads as a small diff.
	fmt.Println("{")
	for i, key := range []string{"provenance", "kinds"} {
		b, _ := json.Marshal(out[key])
		fmt.Printf("%q: %s,\n", key, b)
		_ = i
	}
	names := make([]string, 0, len(g.types))
	for name := range g.types {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Println(`"types": {`)
	for i, name := range names {
		b, _ := json.Marshal(g.types[name])
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Printf("%q: %s%s\n", name, b, sep)
	}
	fmt.Println("}}")
}
