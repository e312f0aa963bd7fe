package subject

// The modules whose types the table describes, at the version the test
// control plane runs (go.mod pins them; these imports keep them there).
import (
	_ "k8s.io/api/core/v1"
	_ "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)
