// Go's verdict on regular expressions, for kubegen-codegen's RE2
// differential test (tests/re2_differential.rs). Standard library only.
//
// Input on stdin, one JSON object per line:
//
//	{"pattern": "...", "inputs": ["...", ...]}
//
// Output on stdout, one JSON object per line, in order:
//
//	{"error": "..."}                 regexp.Compile refused the pattern
//	{"matches": [true, false, ...]}  MatchString of each input
//
// With the argument "names" it prints instead the Unicode class names
// regexp/syntax accepts in \p{...}, one "canonical<TAB>table key" per line.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"unicode"
)

type query struct {
	Pattern string   `json:"pattern"`
	Inputs  []string `json:"inputs"`
}

type answer struct {
	Error   *string `json:"error,omitempty"`
	Matches []bool  `json:"matches"`
}

// canonical is regexp/syntax's lookup key: a leading capital, the rest in
// lower case, without '_', '-' or ' '.
func canonical(name string) string {
	out := []byte{}
	first := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case first:
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			first = false
		default:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
		}
		out = append(out, c)
	}
	return string(out)
}

func names() {
	keys := map[string]string{}
	add := func(key string) {
		// Only names regexp itself accepts, under their own spelling.
		if _, err := regexp.Compile(`\p{` + key + `}`); err == nil {
			keys[canonical(key)] = key
		}
	}
	for k := range unicode.Categories {
		add(k)
	}
	for k := range unicode.Scripts {
		add(k)
	}
	for k := range unicode.CategoryAliases {
		add(k)
	}
	for _, k := range []string{"Any", "Assigned", "ASCII", "LC"} {
		add(k)
	}
	sorted := make([]string, 0, len(keys))
	for c := range keys {
		sorted = append(sorted, c)
	}
	sort.Strings(sorted)
	for _, c := range sorted {
		fmt.Printf("%s\t%s\n", c, keys[c])
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "names" {
		names()
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var q query
		if err := json.Unmarshal(in.Bytes(), &q); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var a answer
		re, err := regexp.Compile(q.Pattern)
		if err != nil {
			msg := err.Error()
			a.Error = &msg
		} else {
			a.Matches = make([]bool, len(q.Inputs))
			for i, s := range q.Inputs {
				a.Matches[i] = re.MatchString(s)
			}
		}
		if err := enc.Encode(a); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
