//go:build k8s138

package upstream

import (
	"context"
	"errors"

	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// ErrGroupsNotRefereed: this referee does not decide pod groups at v1.38. Workload-aware
// preemption there ranks the placement's nodes by the victims each would condemn
// (DefaultPreemption's RankNodes and Reserve over a PodGroupPreemptionState) inside upstream's
// own pod-group algorithm, which the first-fit placement both sides share at v1.37 does not
// reproduce; preempt-whatif refuses pod groups at --kubernetes-version 1.38 for the same reason.
var ErrGroupsNotRefereed = errors.New("the v1.38 referee does not decide pod groups (workload-aware preemption ranks nodes by victim cost there)")

// DecideGroup: see ErrGroupsNotRefereed.
func (s *Scheduler) DecideGroup(context.Context, *framework.PodGroupInfo) (*GroupReport, error) {
	return nil, ErrGroupsNotRefereed
}

// ValidateGroup: see ErrGroupsNotRefereed.
func (s *Scheduler) ValidateGroup(*framework.PodGroupInfo) error { return ErrGroupsNotRefereed }

// NewGroupReport: see ErrGroupsNotRefereed.
func (s *Scheduler) NewGroupReport(*framework.PodGroupInfo) *GroupReport { return &GroupReport{} }
