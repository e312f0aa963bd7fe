// The oracle for tests/x509_differential.rs: certificates read and
// verified by Go's crypto/x509, as the apiserver reads and verifies a
// webhook's serving certificate (and a client certificate it is shown).
//
// One JSON case a line on stdin:
//
//	{"ca": "ca.crt", "server": "tls.crt", "client": "client.crt",
//	 "other_ca": "ca.crt of another CA", "name": "a name of the server
//	 certificate", "wrong": "a name it lacks"}
//
// and one JSON answer a line on stdout: what Go parsed (the CA's and the
// client's subject, the server's names, validity, key usages) and the
// error of each verification ("" when verified).
package main

import (
	"bufio"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
)

type request struct {
	CA      string `json:"ca"`
	Server  string `json:"server"`
	Client  string `json:"client"`
	OtherCA string `json:"other_ca"`
	Name    string `json:"name"`
	Wrong   string `json:"wrong"`
}

type parsed struct {
	Subject   string   `json:"subject"`
	IsCA      bool     `json:"is_ca"`
	KeyUsage  int      `json:"key_usage"`
	ExtUsage  []int    `json:"ext_key_usage"`
	DNS       []string `json:"dns"`
	IPs       []string `json:"ips"`
	NotBefore int64    `json:"not_before"`
	NotAfter  int64    `json:"not_after"`
	Serial    string   `json:"serial"`
}

type answer struct {
	Error          string  `json:"error,omitempty"`
	CA             *parsed `json:"ca,omitempty"`
	Server         *parsed `json:"server,omitempty"`
	Client         *parsed `json:"client,omitempty"`
	ServerVerified string  `json:"server_verified"`
	WrongName      string  `json:"wrong_name"`
	OtherCA        string  `json:"other_ca"`
	ClientVerified string  `json:"client_verified"`
	ClientAsServer string  `json:"client_as_server"`
	ServerAsClient string  `json:"server_as_client"`
}

func read(path string) (*x509.Certificate, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, rest := pem.Decode(text)
	if block == nil || block.Type != "CERTIFICATE" || len(rest) != 0 {
		return nil, fmt.Errorf("%s: not one PEM CERTIFICATE block", path)
	}
	return x509.ParseCertificate(block.Bytes)
}

func describe(c *x509.Certificate) *parsed {
	p := &parsed{
		Subject:   c.Subject.CommonName,
		IsCA:      c.BasicConstraintsValid && c.IsCA,
		KeyUsage:  int(c.KeyUsage),
		DNS:       c.DNSNames,
		NotBefore: c.NotBefore.Unix(),
		NotAfter:  c.NotAfter.Unix(),
		Serial:    c.SerialNumber.String(),
	}
	for _, u := range c.ExtKeyUsage {
		p.ExtUsage = append(p.ExtUsage, int(u))
	}
	for _, ip := range c.IPAddresses {
		p.IPs = append(p.IPs, ip.String())
	}
	return p
}

func verify(c *x509.Certificate, root *x509.Certificate, name string, usage x509.ExtKeyUsage) string {
	roots := x509.NewCertPool()
	roots.AddCert(root)
	_, err := c.Verify(x509.VerifyOptions{
		DNSName:   name,
		Roots:     roots,
		KeyUsages: []x509.ExtKeyUsage{usage},
	})
	if err != nil {
		return err.Error()
	}
	return ""
}

func check(r request) answer {
	var certs [4]*x509.Certificate
	for i, path := range []string{r.CA, r.Server, r.Client, r.OtherCA} {
		c, err := read(path)
		if err != nil {
			return answer{Error: err.Error()}
		}
		certs[i] = c
	}
	ca, server, client, other := certs[0], certs[1], certs[2], certs[3]
	return answer{
		CA:             describe(ca),
		Server:         describe(server),
		Client:         describe(client),
		ServerVerified: verify(server, ca, r.Name, x509.ExtKeyUsageServerAuth),
		WrongName:      verify(server, ca, r.Wrong, x509.ExtKeyUsageServerAuth),
		OtherCA:        verify(server, other, r.Name, x509.ExtKeyUsageServerAuth),
		ClientVerified: verify(client, ca, "", x509.ExtKeyUsageClientAuth),
		ClientAsServer: verify(client, ca, "", x509.ExtKeyUsageServerAuth),
		ServerAsClient: verify(server, ca, "", x509.ExtKeyUsageClientAuth),
	}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	encoder := json.NewEncoder(out)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := encoder.Encode(check(r)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
