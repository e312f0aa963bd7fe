// Command table writes kubegen-runtime's protobuf field table
// (kubegen-base/src/protobuf/table.rs) from the Go API types client-go
// registers: for every struct reachable from a built-in kind, each field's
// protobuf number, JSON name, shape (plain, pointer, repeated, map, inlined)
// and whether encoding/json omits its zero value. The Rust decoder turns a
// protobuf object into exactly what encoding/json would write for the Go
// object the apiserver decodes it into, so it needs the Go rules, and the Go
// types are the only place they are written down.
//
// Anything the decoder does not implement (a type with its own JSON
// encoding not listed in specials, an interface, a key that is not a
// string, a float, omitzero alone) stops the
// program with an error naming the field: the table never guesses.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// specials are the types with their own JSON and protobuf encodings, by Go
// name; the Rust decoder implements each by name.
var specials = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "Time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "MicroTime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "FieldsV1",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "Quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "IntOrString",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    "RawExtension",
}

var marshaler = reflect.TypeFor[json.Marshaler]()

type field struct {
	number int
	json   string
	shape  string // Plain, Pointer, Repeated, Map, Inline
	value  string // Value variant, e.g. String or Message(12)
	omit   string // Never, Empty
}

type message struct {
	name   string
	fields []field
}

type generator struct {
	index    map[reflect.Type]int
	messages []*message
	pending  []reflect.Type
}

func name(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// messageOf returns the table index of struct type t, queueing it.
func (g *generator) messageOf(t reflect.Type) int {
	if i, ok := g.index[t]; ok {
		return i
	}
	i := len(g.messages)
	g.index[t] = i
	g.messages = append(g.messages, &message{name: name(t)})
	g.pending = append(g.pending, t)
	return i
}

func fail(t reflect.Type, f reflect.StructField, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "table: %s.%s: %s\n", name(t), f.Name, fmt.Sprintf(format, args...))
	os.Exit(1)
}

// value names the Value variant for a non-pointer, non-container type.
// The wire type follows from the Go kind, as in go-to-protobuf; the
// struct tags' encodings are not used, since they are not always what the
// generated code writes (scheduling/v1 PriorityClass.value says bytes for an
// int32). The decoder rejects a wire type other than the kind's.
func (g *generator) value(owner reflect.Type, f reflect.StructField, t reflect.Type) string {
	if special, ok := specials[name(t)]; ok && special != "" {
		return special
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		fail(owner, f, "type %s has its own JSON encoding", t)
	}
	switch t.Kind() {
	case reflect.String:
		return "String"
	case reflect.Bool:
		return "Bool"
	case reflect.Int32:
		return "Int32"
	case reflect.Int64:
		return "Int64"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "Bytes"
		}
	case reflect.Struct:
		return "Message(" + strconv.Itoa(g.messageOf(t)) + ")"
	}
	fail(owner, f, "unsupported type %s", t)
	return ""
}

// fields lists struct t's fields in Go order, as encoding/json sees them.
func (g *generator) fields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		jsonName, omitEmpty, omitZero := parts[0], false, false
		for _, option := range parts[1:] {
			switch option {
			case "omitempty":
				omitEmpty = true
			case "omitzero":
				omitZero = true
			case "inline":
			default:
				fail(t, f, "json option %q", option)
			}
		}
		omit, ok := map[[2]bool]string{{false, false}: "Never", {true, false}: "Empty", {true, true}: "EmptyOrZero"}[[2]bool{omitEmpty, omitZero}]
		if !ok {
			fail(t, f, "omitzero without omitempty")
		}
		if omitZero && f.Type.Kind() == reflect.Struct && specials[name(f.Type)] != "Time" && specials[name(f.Type)] != "MicroTime" {
			// Zero of any other struct would need the whole decoded
			// value (or its IsZero method) before writing the key.
			fail(t, f, "omitzero on %s", f.Type)
		}
		if f.Anonymous && jsonName == "" && name(f.Type) == "k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta" {
			continue // apiVersion and kind travel in the protobuf envelope
		}
		proto := f.Tag.Get("protobuf")
		if proto == "" {
			fail(t, f, "no protobuf tag")
		}
		tagParts := strings.Split(proto, ",")
		number, err := strconv.Atoi(tagParts[1])
		if err != nil {
			fail(t, f, "protobuf tag %q", proto)
		}
		if f.Anonymous && jsonName == "" {
			if f.Type.Kind() != reflect.Struct {
				fail(t, f, "embedded %s", f.Type)
			}
			out = append(out, field{number, "", "Inline", g.value(t, f, f.Type), "Never"})
			continue
		}
		if jsonName == "" {
			fail(t, f, "no JSON name")
		}
		ft := f.Type
		shape := "Plain"
		switch {
		case ft.Kind() == reflect.Pointer:
			shape, ft = "Pointer", ft.Elem()
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
			shape, ft = "Repeated", ft.Elem()
		case ft.Kind() == reflect.Map:
			if ft.Key().Kind() != reflect.String {
				fail(t, f, "map key %s", ft.Key())
			}
			shape, ft = "Map", ft.Elem()
			if ft.Kind() == reflect.Slice && ft.Name() != "" && ft.Elem().Kind() == reflect.String {
				// A named []string (authentication's ExtraValue) is a
				// message with one repeated string field in protobuf.
				out = append(out, field{number, jsonName, shape, "StringList", omit})
				continue
			}
		}
		if ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Map || (ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8) || (f.Type.Kind() == reflect.Slice && f.Type.Name() != "") {
			fail(t, f, "nested container %s", f.Type)
		}
		out = append(out, field{number, jsonName, shape, g.value(t, f, ft), omit})
	}
	return out
}

type kind struct {
	apiVersion, kind string
	message          int
}

func main() {
	g := &generator{index: map[reflect.Type]int{}}
	var kinds []kind
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" || !strings.HasPrefix(t.PkgPath(), "k8s.io/api/") {
			continue
		}
		kinds = append(kinds, kind{gvk.GroupVersion().String(), gvk.Kind, -1})
	}
	// The apiserver's errors, in a failed request's body or a watch's
	// ERROR event.
	status := reflect.TypeFor[metav1.Status]()
	kinds = append(kinds, kind{"v1", "Status", g.messageOf(status)})
	sort.Slice(kinds, func(i, j int) bool {
		if kinds[i].apiVersion != kinds[j].apiVersion {
			return kinds[i].apiVersion < kinds[j].apiVersion
		}
		return kinds[i].kind < kinds[j].kind
	})
	types := scheme.Scheme.AllKnownTypes()
	for i := range kinds {
		if kinds[i].message >= 0 {
			continue
		}
		for gvk, t := range types {
			if gvk.GroupVersion().String() == kinds[i].apiVersion && gvk.Kind == kinds[i].kind {
				kinds[i].message = g.messageOf(t)
			}
		}
	}
	for len(g.pending) > 0 {
		t := g.pending[0]
		g.pending = g.pending[1:]
		g.messages[g.index[t]].fields = g.fields(t)
	}

	var b strings.Builder
	b.WriteString("// @generated by kubegen-base/protobuf/cmd/table. DO NOT EDIT.\n")
	b.WriteString("//! The protobuf field table of the built-in types (k8s.io/api v0.36.3):\n")
	b.WriteString("//! each message's fields in Go order, as encoding/json writes them.\n\n")
	b.WriteString("use super::table::{Kind, Message, Omit::*, Shape::*, Value::*, f};\n\n")
	b.WriteString("/// Every message, indexed by `Value::Message`.\n")
	fmt.Fprintf(&b, "pub(super) static MESSAGES: [Message; %d] = [\n", len(g.messages))
	for _, m := range g.messages {
		fmt.Fprintf(&b, "    Message {\n        name: %q,\n        fields: &[\n", m.name)
		for _, f := range m.fields {
			fmt.Fprintf(&b, "            f(%d, %q, %s, %s, %s),\n", f.number, f.json, f.shape, f.value, f.omit)
		}
		b.WriteString("        ],\n    },\n")
	}
	b.WriteString("];\n\n")
	b.WriteString("/// Every built-in kind, sorted by apiVersion then kind.\n")
	fmt.Fprintf(&b, "pub(super) static KINDS: [Kind; %d] = [\n", len(kinds))
	for _, k := range kinds {
		fmt.Fprintf(&b, "    Kind { api_version: %q, kind: %q, message: %d },\n", k.apiVersion, k.kind, k.message)
	}
	b.WriteString("];\n")
	if _, err := os.Stdout.WriteString(b.String()); err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
}
