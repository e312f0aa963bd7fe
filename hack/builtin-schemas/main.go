// Command builtin-schemas prints the schema controller-gen gives each
// Kubernetes API type, for kubegen-core's table of built-in schemas
// (hack/k8s-builtin-schemas.py runs it; see that script).
//
// It runs controller-gen's own CRD schema parser (sigs.k8s.io/controller-tools
// pkg/crd, the code `controller-gen crd` runs, with its known-type overrides
// and `crd:generateEmbeddedObjectMeta=true`) over the Go packages that define
// the requested types, and prints each type's schema before flattening:
// references to other types stay references, rewritten to the OpenAPI
// definition name of the referenced type (`#/components/schemas/io.k8s.api.core.v1.Container`).
//
// Floats are allowed (`crd:allowDangerousTypes=true`): kubegen maps Rust
// floats to `type: number` itself.
//
// Input (stdin): a JSON array of OpenAPI definition names
// (`io.k8s.api.core.v1.PodSpec`). Output (stdout): a JSON object
// `{"schemas": {name: schema}, "refused": {name: [error]}, "notes": [..]}`
// holding each of those names and every name they refer to: its schema,
// and the errors controller-gen reported while generating it, if any (such
// a type cannot be embedded in a CRD by controller-gen). `notes` are the
// errors of loading and type-checking the packages, which no schema
// depends on (function bodies of conversion code).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/crd"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
)

const (
	refPrefix     = "#/definitions/"
	openAPIPrefix = "#/components/schemas/"
)

// goPackage maps a definition's prefix to its Go package path:
// io.k8s.api.core.v1 -> k8s.io/api/core/v1.
func goPackage(prefix string) string {
	rest := strings.TrimPrefix(prefix, "io.k8s.")
	return "k8s.io/" + strings.ReplaceAll(rest, ".", "/")
}

// definitionPrefix is the inverse of goPackage.
func definitionPrefix(pkg string) (string, error) {
	rest, ok := strings.CutPrefix(pkg, "k8s.io/")
	if !ok {
		return "", fmt.Errorf("type in package %q outside k8s.io", pkg)
	}
	return "io.k8s." + strings.ReplaceAll(rest, "/", "."), nil
}

func split(name string) (pkg, typ string) {
	i := strings.LastIndex(name, ".")
	return goPackage(name[:i]), name[i+1:]
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "builtin-schemas:", err)
		os.Exit(1)
	}
}

func run() error {
	var names []string
	if err := json.NewDecoder(os.Stdin).Decode(&names); err != nil {
		return fmt.Errorf("reading the definition names: %w", err)
	}
	paths := map[string]bool{}
	for _, n := range names {
		p, _ := split(n)
		paths[p] = true
	}
	var roots []string
	for p := range paths {
		roots = append(roots, p)
	}
	sort.Strings(roots)
	pkgs, err := loader.LoadRoots(roots...)
	if err != nil {
		return err
	}
	byPath := map[string]*loader.Package{}
	for _, p := range pkgs {
		byPath[p.PkgPath] = p
	}

	registry := &markers.Registry{}
	if err := crdmarkers.Register(registry); err != nil {
		return err
	}
	parser := &crd.Parser{
		Collector:                  &markers.Collector{Registry: registry},
		Checker:                    &loader.TypeChecker{},
		GenerateEmbeddedObjectMeta: true,
		AllowDangerousTypes:        true,
	}
	crd.AddKnownTypes(parser)
	for _, p := range pkgs {
		parser.NeedPackage(p)
	}
	var notes []string
	seen := map[*loader.Package]int{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			notes = append(notes, fmt.Sprintf("%s: %v", p.PkgPath, e))
		}
		seen[p] = len(p.Errors)
	}

	out := map[string]json.RawMessage{}
	refused := map[string][]string{}
	todo := append([]string(nil), names...)
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, done := out[name]; done {
			continue
		}
		pkgPath, typ := split(name)
		pkg := byPath[pkgPath]
		if pkg == nil {
			more, err := loader.LoadRoots(pkgPath)
			if err != nil {
				return err
			}
			pkg = more[0]
			byPath[pkgPath] = pkg
			pkgs = append(pkgs, pkg)
			parser.NeedPackage(pkg)
			for _, e := range pkg.Errors {
				notes = append(notes, fmt.Sprintf("%s: %v", pkg.PkgPath, e))
			}
			seen[pkg] = len(pkg.Errors)
		}
		ident := crd.TypeIdent{Package: pkg, Name: typ}
		parser.NeedSchemaFor(ident)
		// Errors are recorded on packages: those added while generating
		// this schema are this type's (its own fields' errors; a referenced
		// type's schema is generated when its own name is reached).
		for _, p := range pkgs {
			for _, e := range p.Errors[seen[p]:] {
				refused[name] = append(refused[name], fmt.Sprint(e))
			}
			seen[p] = len(p.Errors)
		}
		schema, ok := parser.Schemata[ident]
		if !ok {
			return fmt.Errorf("controller-gen has no schema for %s", name)
		}
		raw, err := json.Marshal(schema)
		if err != nil {
			return err
		}
		var tree any
		if err := json.Unmarshal(raw, &tree); err != nil {
			return err
		}
		var refs []string
		if err := rewriteRefs(tree, pkg.PkgPath, &refs); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		todo = append(todo, refs...)
		raw, err = json.Marshal(tree)
		if err != nil {
			return err
		}
		out[name] = raw
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"schemas": out, "refused": refused, "notes": notes})
}

// rewriteRefs turns controller-gen's `#/definitions/<pkg>~0<Type>` links
// into OpenAPI definition names and collects them.
func rewriteRefs(node any, context string, refs *[]string) error {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if k == "properties" {
				// property names are data, not keywords
				props, _ := v.(map[string]any)
				for _, p := range props {
					if err := rewriteRefs(p, context, refs); err != nil {
						return err
					}
				}
				continue
			}
			if k == "$ref" {
				s, _ := v.(string)
				name, err := definitionOf(s, context)
				if err != nil {
					return err
				}
				n[k] = openAPIPrefix + name
				*refs = append(*refs, name)
				continue
			}
			if err := rewriteRefs(v, context, refs); err != nil {
				return err
			}
		}
	case []any:
		for _, v := range n {
			if err := rewriteRefs(v, context, refs); err != nil {
				return err
			}
		}
	}
	return nil
}

func definitionOf(ref, context string) (string, error) {
	rest, ok := strings.CutPrefix(ref, refPrefix)
	if !ok {
		return "", fmt.Errorf("unexpected reference %q", ref)
	}
	pkg, typ := context, rest
	if i := strings.Index(rest, "~0"); i >= 0 {
		pkg = strings.ReplaceAll(rest[:i], "~1", "/")
		typ = rest[i+2:]
	}
	prefix, err := definitionPrefix(pkg)
	if err != nil {
		return "", err
	}
	return prefix + "." + typ, nil
}
