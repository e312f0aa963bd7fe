module kubegen.test/x509-go

go 1.26
