//go:build !k8s138

// Package release names the kube-scheduler release this build of the conformance module runs
// (k8s.io/kubernetes v1.37 from go.mod; release_138.go with go138.mod and -tags k8s138).
package release

// Name is the release: "1.37" or "1.38".
const Name = "1.37"
