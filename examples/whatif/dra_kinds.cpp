// examples/whatif/dra_kinds.cpp - see dra_kinds.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "dra_kinds.hpp"

namespace whatif::kinds::dra {

namespace {

namespace dom = simdjson::dom;
namespace kd = k8s::dra;
using decode::field;

constexpr field<kd::pod_claim> pod_claim_fields[] = {
    {"name", decode::text<&kd::pod_claim::name>{}},
    {"resourceClaimName", decode::text<&kd::pod_claim::claim_name>{}},
    {"resourceClaimTemplateName", decode::text<&kd::pod_claim::template_name>{}},
};
constexpr field<kd::pod_claim_status> pod_claim_status_fields[] = {
    {"name", decode::text<&kd::pod_claim_status::name>{}},
    {"resourceClaimName", decode::text<&kd::pod_claim_status::claim_name>{}},
};

}  // namespace

bool pod_claims_field::read(decode::context& x, dom::element e, pod_object& p) {
  return decode::list<pod_claim_fields, &pod_object::resource_claims>::read(x, e, p);
}

bool pod_claim_statuses_field::read(decode::context& x, dom::element e, pod_object& p) {
  return decode::list<pod_claim_status_fields, &pod_object::claim_statuses>::read(x, e, p);
}

}  // namespace whatif::kinds::dra
