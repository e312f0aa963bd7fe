// The oracle for tests/plural_flect.rs: for each kind on stdin (one a line),
// the plural controller-gen v0.23.0 gives it (pkg/crd/spec.go:
// strings.ToLower(flect.Pluralize(groupKind.Kind))), as "kind\tplural".
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/gobuffalo/flect"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		kind := in.Text()
		fmt.Fprintf(out, "%s\t%s\n", kind, strings.ToLower(flect.Pluralize(kind)))
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
