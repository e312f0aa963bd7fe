// Command builtin-defaults writes kubegen-core/src/defaults/types.json:
// the Go shape of every type reachable from the built-in kinds
// kubegen-core's defaults module covers, as encoding/json reads and
// writes it — each struct's JSON fields in Go order (embedded structs
// inlined) with their Go type expression, their `omitempty` and
// `omitzero` options, the named map type they are (ResourceList, whose
// defaulting rounds quantities) and their `+default=` marker, resolved to
// a JSON value as defaulter-gen resolves it (`ref(Const)` to the
// constant's value) — and which types write themselves (json.Marshaler:
// Time, MicroTime, Quantity, IntOrString, FieldsV1, …).
//
// Usage: go run . > ../../kubegen-core/src/defaults/types.json
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// The kinds in scope, as `apiVersion/Kind`.
var kinds = []string{
	"v1/Pod", "v1/Service", "v1/ConfigMap", "v1/Secret", "v1/ServiceAccount",
	"v1/PersistentVolumeClaim", "v1/Namespace", "v1/Event",
	"apps/v1/Deployment", "apps/v1/StatefulSet", "apps/v1/DaemonSet", "apps/v1/ReplicaSet",
	"batch/v1/Job", "batch/v1/CronJob",
	"networking.k8s.io/v1/Ingress", "networking.k8s.io/v1/NetworkPolicy",
	"policy/v1/PodDisruptionBudget", "coordination.k8s.io/v1/Lease", "events.k8s.io/v1/Event",
	"rbac.authorization.k8s.io/v1/Role", "rbac.authorization.k8s.io/v1/RoleBinding",
	"rbac.authorization.k8s.io/v1/ClusterRole", "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
	"autoscaling/v2/HorizontalPodAutoscaler",
}

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

var marshaler = reflect.TypeFor[json.Marshaler]()

type generator struct {
	types   map[string]any
	queue   []reflect.Type
	markers map[string]map[string]string // package path → "Type.Field" → marker
	consts  map[string]map[string]string // package path → const name → Go literal
}

// typeExpr writes a field's Go type: `*T`, `[]T`, `map[K]V`, a struct
// as its definition name, anything else as its reflect kind.
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

// load reads the `+default=` markers and the string and number constants
// of a package's source.
func (g *generator) load(pkg string) {
	if _, ok := g.markers[pkg]; ok {
		return
	}
	g.markers[pkg] = map[string]string{}
	g.consts[pkg] = map[string]string{}
	p, err := build.Import(pkg, "", build.FindOnly)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, p.Dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, astPkg := range pkgs {
		for _, file := range astPkg.Files {
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for i, name := range n.Names {
						if i < len(n.Values) {
							if lit, ok := n.Values[i].(*ast.BasicLit); ok {
								g.consts[pkg][name.Name] = lit.Value
							}
						}
					}
				case *ast.TypeSpec:
					st, ok := n.Type.(*ast.StructType)
					if !ok {
						return true
					}
					for _, f := range st.Fields.List {
						if f.Doc == nil || len(f.Names) == 0 {
							continue
						}
						for _, c := range f.Doc.List {
							text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
							if v, ok := strings.CutPrefix(text, "+default="); ok {
								g.markers[pkg][n.Name.Name+"."+f.Names[0].Name] = v
							}
						}
					}
				}
				return true
			})
		}
	}
}

// marker is a field's `+default=` value as JSON, or nil.
func (g *generator) marker(t reflect.Type, f reflect.StructField) any {
	g.load(t.PkgPath())
	v, ok := g.markers[t.PkgPath()][t.Name()+"."+f.Name]
	if !ok {
		return nil
	}
	if inner, ok := strings.CutPrefix(v, "ref("); ok {
		name := strings.TrimSuffix(inner, ")")
		lit, ok := g.consts[t.PkgPath()][name]
		if !ok {
			fmt.Fprintf(os.Stderr, "%s.%s: unresolved %s\n", t, f.Name, v)
			os.Exit(1)
		}
		v = lit
	}
	if s, err := strconv.Unquote(v); err == nil {
		return s
	}
	var out any
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		fmt.Fprintf(os.Stderr, "%s.%s: marker %s: %v\n", t, f.Name, v, err)
		os.Exit(1)
	}
	return out
}

// fields lists a struct's JSON fields as encoding/json sees them, in its
// order (embedded structs without a name inlined where they stand).
func (g *generator) fields(t reflect.Type, depth int, seen map[string]int, out *[][]any) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			g.fields(ft, depth+1, seen, out)
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
		omitempty, omitzero := false, false
		for _, o := range strings.Split(opts, ",") {
			omitempty = omitempty || o == "omitempty"
			omitzero = omitzero || o == "omitzero"
		}
		named := ""
		if ft.Kind() == reflect.Map && ft.Name() != "" {
			named = definitionName(ft)
		}
		*out = append(*out, []any{name, g.typeExpr(ft), omitempty, omitzero, named, g.marker(t, f)})
	}
}

func (g *generator) describe(t reflect.Type) any {
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return map[string]any{"go": t.Name(), "marshaler": true}
	}
	out := [][]any{}
	g.fields(t, 0, map[string]int{}, &out)
	return map[string]any{"go": t.Name(), "fields": out}
}

func main() {
	g := &generator{types: map[string]any{}, markers: map[string]map[string]string{}, consts: map[string]map[string]string{}}
	roots := map[string]map[string]string{}
	for _, k := range kinds {
		i := strings.LastIndex(k, "/")
		gvk := schema.FromAPIVersionAndKind(k[:i], k[i+1:])
		obj, err := clientgoscheme.Scheme.New(gvk)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if roots[k[:i]] == nil {
			roots[k[:i]] = map[string]string{}
		}
		roots[k[:i]][k[i+1:]] = g.typeExpr(reflect.TypeOf(obj).Elem())
	}
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		g.types[definitionName(t)] = g.describe(t)
	}
	provenance, _ := json.Marshal(map[string]string{
		"generator": "hack/builtin-defaults",
		"source":    "reflect over the Go types k8s.io/client-go v0.36.3 registers, their json tags, and the +default markers of their k8s.io/api v0.36.3 source",
		"fields":    "[json name, Go type, omitempty, omitzero, named map type, +default marker]",
	})
	kindsJSON, _ := json.Marshal(roots)
	// One type per line, sorted, so that a change reads as a small diff.
	fmt.Printf("{\n\"provenance\": %s,\n\"kinds\": %s,\n\"types\": {\n", provenance, kindsJSON)
	names := make([]string, 0, len(g.types))
	for name := range g.types {
		names = append(names, name)
	}
	sort.Strings(names)
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
