module kubegen.test/flect

go 1.22

require github.com/gobuffalo/flect v1.0.3
