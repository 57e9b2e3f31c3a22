//go:build k8s138

// Package release names the kube-scheduler release this build of the conformance module runs
// (k8s.io/kubernetes v1.38.0-beta.0 from go138.mod, -tags k8s138; release_137.go otherwise).
package release

// Name is the release: "1.37" or "1.38".
const Name = "1.38"
