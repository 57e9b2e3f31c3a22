package dump

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// decodeObject's fast path (the scheme decodes the object as it is) must answer as the path
// that reads the object's head first, for every kind of item a dump holds.
func TestDecodeObjectAnswersAsDecodeByHead(t *testing.T) {
	cases := []struct {
		name, raw, defaultKind string
		wantKind, wantErr      string // wantErr: a part of the error; "" for none
		wantType               any    // the decoded object's type; nil for an ignored object
	}{
		{name: "pod", raw: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a"},"spec":{"containers":[{"name":"c"}]}}`,
			wantKind: "Pod", wantType: &v1.Pod{}},
		{name: "pod without apiVersion", raw: `{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}}`,
			wantKind: "Pod", wantType: &v1.Pod{}},
		{name: "pod without kind, kind given", raw: `{"metadata":{"name":"p"},"spec":{}}`, defaultKind: "Pod",
			wantKind: "Pod", wantType: &v1.Pod{}},
		{name: "without kind", raw: `{"metadata":{"name":"p"}}`, wantErr: "kind: missing"},
		{name: "another core kind", raw: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`, wantKind: "ConfigMap"},
		{name: "a kind the scheme does not know", raw: `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"x":1}}`, wantKind: "Widget"},
		{name: "malformed", raw: `{"apiVersion":"v1","kind":"Pod","spec":`, wantErr: "malformed JSON"},
		{name: "a field of the wrong type", raw: `{"apiVersion":"v1","kind":"Pod","spec":3}`, wantKind: "Pod", wantErr: "spec"},
		{name: "a kind of another group", raw: `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"}}`,
			wantKind: "DeviceClass", wantType: &resourcev1.DeviceClass{}},
		{name: "a known kind in a version the scheme does not serve", raw: `{"apiVersion":"v2","kind":"Pod","metadata":{"name":"p"}}`,
			wantKind: "Pod", wantErr: "v2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj, kind, err := decodeObject(json.RawMessage(c.raw), c.defaultKind)
			byHead, kindByHead, errByHead := decodeByHead(json.RawMessage(c.raw), c.defaultKind)
			if kind != kindByHead || (err == nil) != (errByHead == nil) ||
				(err != nil && err.Error() != errByHead.Error()) || !equality.Semantic.DeepEqual(obj, byHead) {
				t.Fatalf("decodeObject: %T %q %v; decodeByHead: %T %q %v", obj, kind, err, byHead, kindByHead, errByHead)
			}
			if kind != c.wantKind {
				t.Errorf("kind %q, want %q", kind, c.wantKind)
			}
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.wantType == nil {
				if obj != nil {
					t.Fatalf("decoded %T, want it ignored", obj)
				}
				return
			}
			if got, want := typeName(obj), typeName(c.wantType); got != want {
				t.Fatalf("decoded %s, want %s", got, want)
			}
			if p, ok := obj.(*v1.Pod); ok && (p.Spec.RestartPolicy != v1.RestartPolicyAlways || p.Spec.SchedulerName != "default-scheduler") {
				t.Fatalf("pod not defaulted: restartPolicy %q, schedulerName %q", p.Spec.RestartPolicy, p.Spec.SchedulerName)
			}
		})
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
