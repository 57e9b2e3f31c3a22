// examples/whatif/decode/dra_kinds.cpp - see dra_kinds.hpp. One field table per JSON object, from
// the innermost up, as in kinds.cpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "decode/dra_kinds.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "decode/shared_fields.hpp"
#include "output/one_line.hpp"

namespace whatif::kinds::dra {

namespace {

namespace dom = simdjson::dom;
namespace kd = k8s::dra;
using decode::context;
using decode::field;
using decode::required;

// ---- Pod ---------------------------------------------------------------------------------------

constexpr field<kd::pod_claim> pod_claim_fields[] = {
    {"name", decode::text<&kd::pod_claim::name>{}},
    {"resourceClaimName", decode::text<&kd::pod_claim::claim_name>{}},
    {"resourceClaimTemplateName", decode::text<&kd::pod_claim::template_name>{}},
};
constexpr field<kd::pod_claim_status> pod_claim_status_fields[] = {
    {"name", decode::text<&kd::pod_claim_status::name>{}},
    {"resourceClaimName", decode::text<&kd::pod_claim_status::claim_name>{}},
};

// ---- Readers -----------------------------------------------------------------------------------

// An exact quantity: a string (spaces trimmed) or a number.
bool read_amount(context& x, dom::element e, kd::amount& out) {
  std::string text;
  switch (e.type()) {
    case dom::element_type::STRING: {
      std::string_view s;
      if (!x.read_string(e, s)) return false;
      const auto first = s.find_first_not_of(" \t\r\n");
      const auto last = s.find_last_not_of(" \t\r\n");
      if (first != std::string_view::npos) text.assign(s.substr(first, last - first + 1));
      break;
    }
    case dom::element_type::INT64: text = std::to_string(e.get_int64().value_unsafe()); break;
    case dom::element_type::UINT64: text = std::to_string(e.get_uint64().value_unsafe()); break;
    default: return x.wrong_type(e, "a quantity (a string such as \"40Gi\")");
  }
  auto a = kd::parse_amount(text);
  if (!a) return x.fail(a.message());
  out = *a;
  return true;
}

template <auto... Path>
struct amount_value : decode::detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, decode::detail::owner_of<Path...>& t) {
    kd::amount a;
    if (!read_amount(x, e, a)) return false;
    decode::detail::at<Path...>(t) = a;
    return true;
  }
};

template <auto... Path>
struct int64_value : decode::detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, decode::detail::owner_of<Path...>& t) {
    std::int64_t v = 0;
    if (e.get_int64().get(v) != simdjson::SUCCESS) return x.wrong_type(e, "an integer");
    decode::detail::at<Path...>(t) = v;
    return true;
  }
};

// Present and not null: a field the tool keeps only as a flag.
template <auto... Path>
using flag = decode::presence<Path...>;

// A JSON object used as a map of name to object, each read with `Table` into an element with a
// `name` member (a later key replaces an earlier one, as in a Go map).
template <const auto& Table, auto... Path>
struct named_map : decode::detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, decode::detail::owner_of<Path...>& t) {
    auto& out = decode::detail::at<Path...>(t);
    dom::object o;
    if (!x.read_object(e, o)) return false;
    for (dom::key_value_pair kv : o) {
      auto s = x.field(kv.key);
      typename std::remove_reference_t<decltype(out)>::value_type item;
      item.name = std::string(kv.key);
      if (!kv.value.is_null() && !decode::read_fields(x, kv.value, Table, item)) return false;
      const auto same = std::find_if(
          out.begin(), out.end(), [&](const auto& existing) { return existing.name == item.name; });
      if (same != out.end())
        *same = std::move(item);
      else
        out.push_back(std::move(item));
    }
    return true;
  }
};

// A map of name to quantity (capacity requests, consumed capacity).
template <auto... Path>
struct amount_map : decode::detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, decode::detail::owner_of<Path...>& t) {
    auto& member = decode::detail::at<Path...>(t);
    if constexpr (requires { member.emplace(); }) {
      if (!member) member.emplace();
      return read_into(x, e, *member);
    } else {
      return read_into(x, e, member);
    }
  }
  static bool read_into(context& x, dom::element e,
                        std::vector<std::pair<std::string, kd::amount>>& out) {
    dom::object o;
    if (!x.read_object(e, o)) return false;
    for (dom::key_value_pair kv : o) {
      auto s = x.field(kv.key);
      kd::amount a;
      if (!read_amount(x, kv.value, a)) return false;
      bool replaced = false;
      for (auto& existing : out)
        if (existing.first == kv.key) {
          existing.second = a;
          replaced = true;
        }
      if (!replaced) out.emplace_back(std::string(kv.key), a);
    }
    return true;
  }
};

// ---- ResourceSlice -----------------------------------------------------------------------------

bool read_attribute_value(context& x, dom::element e, kd::attribute& a) {
  dom::object o;
  if (!x.read_object(e, o)) return false;
  using k = kd::attribute_value::kind_type;
  for (dom::key_value_pair kv : o) {
    if (kv.value.is_null()) continue;
    auto s = x.field(kv.key);
    if (kv.key == "int") {
      if (kv.value.get_int64().get(a.value.integer) != simdjson::SUCCESS)
        return x.wrong_type(kv.value, "an integer");
      a.value.kind = k::integer;
    } else if (kv.key == "bool") {
      if (!x.read_bool(kv.value, a.value.boolean)) return false;
      a.value.kind = k::boolean;
    } else if (kv.key == "string" || kv.key == "version") {
      if (!x.read_string(kv.value, a.value.text)) return false;
      a.value.kind = kv.key == "string" ? k::string : k::version;
    } else if (kv.key == "ints" || kv.key == "bools" || kv.key == "strings" ||
               kv.key == "versions") {
      a.value.list_present = true;
    }
  }
  return true;
}
constexpr field<kd::capacity_policy> capacity_range_fields[] = {
    {"min", amount_value<&kd::capacity_policy::min>{}},
    {"max", amount_value<&kd::capacity_policy::max>{}},
    {"step", amount_value<&kd::capacity_policy::step>{}},
};
constexpr field<kd::capacity_policy> capacity_policy_fields[] = {
    {"default", amount_value<&kd::capacity_policy::default_value>{}},
    {"validValues",
     [](context& x, dom::element e, kd::capacity_policy& p) {
       return decode::detail::read_each(x, e, p.valid_values, [&](dom::element v, kd::amount& a) {
         return read_amount(x, v, a);
       });
     },
     [](kd::capacity_policy& p) { p.valid_values.clear(); }},
    {"validRange",
     [](context& x, dom::element e, kd::capacity_policy& p) {
       p.valid_range = true;
       return decode::read_fields(x, e, capacity_range_fields, p);
     },
     [](kd::capacity_policy& p) { p.valid_range = false; }},
};
constexpr field<kd::capacity> capacity_fields[] = {
    {"value", amount_value<&kd::capacity::value>{}},
    {"requestPolicy", decode::object<capacity_policy_fields, &kd::capacity::policy>{}},
};
constexpr field<kd::counter> counter_fields[] = {
    {"value", amount_value<&kd::counter::value>{}},
};
constexpr field<kd::counter_consumption> consumption_fields[] = {
    {"counterSet", decode::text<&kd::counter_consumption::counter_set>{}},
    {"counters", named_map<counter_fields, &kd::counter_consumption::counters>{}},
    {"compatibilityGroups",
     [](context& x, dom::element e, kd::counter_consumption& c) {
       dom::array a;
       if (!x.read_array(e, a)) return false;
       c.compatibility_groups = a.size() > 0;
       return true;
     },
     [](kd::counter_consumption& c) { c.compatibility_groups = false; }},
};
constexpr field<kd::device_taint> device_taint_fields[] = {
    {"key", decode::text<&kd::device_taint::key>{}},
    {"value", decode::text<&kd::device_taint::value>{}},
    {"effect", decode::text<&kd::device_taint::effect>{}},
};
constexpr field<kd::device> device_fields[] = {
    {"name", decode::text<&kd::device::name>{}},
    {"attributes",
     [](context& x, dom::element e, kd::device& d) {
       dom::object o;
       if (!x.read_object(e, o)) return false;
       for (dom::key_value_pair kv : o) {
         auto s = x.field(kv.key);
         kd::attribute a;
         a.name = std::string(kv.key);
         if (!kv.value.is_null() && !read_attribute_value(x, kv.value, a)) return false;
         bool replaced = false;
         for (kd::attribute& existing : d.attributes)
           if (existing.name == a.name) {
             existing = a;
             replaced = true;
           }
         if (!replaced) d.attributes.push_back(std::move(a));
       }
       return true;
     },
     [](kd::device& d) { d.attributes.clear(); }},
    {"capacity", named_map<capacity_fields, &kd::device::capacities>{}},
    {"consumesCounters", decode::list<consumption_fields, &kd::device::consumes_counters>{}},
    {"nodeName", decode::text<&kd::device::node_name>{}},
    {"nodeSelector", decode::object<node_selector_fields, &kd::device::node_selector>{}},
    {"allNodes", decode::boolean<&kd::device::all_nodes>{}},
    {"taints", decode::list<device_taint_fields, &kd::device::taints>{}},
    {"bindsToNode", decode::boolean<&kd::device::binds_to_node>{}},
    {"bindingConditions",
     [](context& x, dom::element e, kd::device& d) {
       d.binding_conditions_present = true;
       return decode::strings<&kd::device::binding_conditions>::read(x, e, d);
     },
     [](kd::device& d) {
       d.binding_conditions_present = false;
       d.binding_conditions.clear();
     }},
    {"allowMultipleAllocations", decode::boolean<&kd::device::allow_multiple_allocations>{}},
    {"nodeAllocatableResources", flag<&kd::device::node_allocatable_present>{}},
};
constexpr field<kd::counter_set> counter_set_fields[] = {
    {"name", decode::text<&kd::counter_set::name>{}},
    {"counters", named_map<counter_fields, &kd::counter_set::counters>{}},
};
constexpr field<kd::resource_slice> pool_fields[] = {
    {"name", decode::text<&kd::resource_slice::pool>{}},
    {"generation", int64_value<&kd::resource_slice::generation>{}},
    {"resourceSliceCount", int64_value<&kd::resource_slice::slice_count>{}},
};
constexpr field<kd::resource_slice> slice_spec_fields[] = {
    {"driver", decode::text<&kd::resource_slice::driver>{}},
    {"pool", decode::flatten<pool_fields>{}},
    {"nodeName", decode::text<&kd::resource_slice::node_name>{}},
    {"nodeSelector", decode::object<node_selector_fields, &kd::resource_slice::node_selector>{}},
    {"allNodes", decode::boolean<&kd::resource_slice::all_nodes>{}},
    {"perDeviceNodeSelection", decode::boolean<&kd::resource_slice::per_device_node_selection>{}},
    {"devices", decode::list<device_fields, &kd::resource_slice::devices>{}},
    {"sharedCounters", decode::list<counter_set_fields, &kd::resource_slice::shared_counters>{}},
    {"partitionTypeAttribute", flag<&kd::resource_slice::unmodelled_fields>{}},
    {"skipNodeOperations", flag<&kd::resource_slice::unmodelled_fields>{}},
};
constexpr field<kd::resource_slice> slice_metadata_fields[] = {
    {"name", decode::text<&kd::resource_slice::name>{}},
};
constexpr field<kd::resource_slice> slice_fields[] = {
    {"metadata", decode::flatten<slice_metadata_fields>{}, required},
    {"spec", decode::flatten<slice_spec_fields>{}, required},
};

// ---- DeviceClass -------------------------------------------------------------------------------

constexpr field<kd::device_selector> cel_fields[] = {
    {"expression", decode::text<&kd::device_selector::cel>{}},
};
constexpr field<kd::device_selector> selector_fields[] = {
    {"cel",
     [](context& x, dom::element e, kd::device_selector& s) {
       if (!s.cel) s.cel.emplace();
       return decode::read_fields(x, e, cel_fields, s);
     },
     [](kd::device_selector& s) { s.cel.reset(); }},
};
constexpr field<kd::device_class> class_spec_fields[] = {
    {"selectors", decode::list<selector_fields, &kd::device_class::selectors>{}},
    {"extendedResourceName", decode::text<&kd::device_class::extended_resource_name>{}},
};
constexpr field<kd::device_class> class_metadata_fields[] = {
    {"name", decode::text<&kd::device_class::name>{}},
};
constexpr field<kd::device_class> class_fields[] = {
    {"metadata", decode::flatten<class_metadata_fields>{}, required},
    {"spec", decode::flatten<class_spec_fields>{}},
};

// ---- ResourceClaim -----------------------------------------------------------------------------

constexpr field<kd::device_toleration> toleration_fields[] = {
    {"key", decode::text<&kd::device_toleration::key>{}},
    {"operator", decode::text<&kd::device_toleration::op>{}},
    {"value", decode::text<&kd::device_toleration::value>{}},
    {"effect", decode::text<&kd::device_toleration::effect>{}},
};
constexpr field<kd::exact_request> capacity_requirement_fields[] = {
    {"requests", amount_map<&kd::exact_request::capacity_requests>{}},
};
constexpr field<kd::exact_request> exact_request_fields[] = {
    {"name", decode::text<&kd::exact_request::name>{}},
    {"deviceClassName", decode::text<&kd::exact_request::class_name>{}},
    {"selectors", decode::list<selector_fields, &kd::exact_request::selectors>{}},
    {"allocationMode", decode::text<&kd::exact_request::allocation_mode>{}},
    {"count", int64_value<&kd::exact_request::count>{}},
    {"adminAccess", decode::boolean<&kd::exact_request::admin_access>{}},
    {"tolerations", decode::list<toleration_fields, &kd::exact_request::tolerations>{}},
    {"capacity",
     [](context& x, dom::element e, kd::exact_request& r) {
       if (!r.capacity_requests) r.capacity_requests.emplace();
       return decode::read_fields(x, e, capacity_requirement_fields, r);
     },
     [](kd::exact_request& r) { r.capacity_requests.reset(); }},
    {"derivedAttributes", flag<&kd::exact_request::derived_attributes_present>{}},
};
constexpr field<kd::device_request> request_fields[] = {
    {"name", decode::text<&kd::device_request::name>{}},
    {"exactly", decode::object<exact_request_fields, &kd::device_request::exactly>{}},
    {"firstAvailable", decode::list<exact_request_fields, &kd::device_request::first_available>{}},
};
constexpr field<kd::device_constraint> constraint_fields[] = {
    {"requests", decode::strings<&kd::device_constraint::requests>{}},
    {"matchAttribute", decode::text<&kd::device_constraint::match_attribute>{}},
    {"distinctAttribute", decode::text<&kd::device_constraint::distinct_attribute>{}},
};
constexpr field<kd::resource_claim> claim_devices_fields[] = {
    {"requests", decode::list<request_fields, &kd::resource_claim::requests>{}},
    {"constraints", decode::list<constraint_fields, &kd::resource_claim::constraints>{}},
};
constexpr field<kd::resource_claim> claim_spec_fields[] = {
    {"devices", decode::flatten<claim_devices_fields>{}},
};
constexpr field<kd::allocated_device> allocated_device_fields[] = {
    {"request", decode::text<&kd::allocated_device::request>{}},
    {"driver", decode::text<&kd::allocated_device::driver>{}},
    {"pool", decode::text<&kd::allocated_device::pool>{}},
    {"device", decode::text<&kd::allocated_device::device>{}},
    {"adminAccess", decode::boolean<&kd::allocated_device::admin_access>{}},
    {"shareID", decode::text<&kd::allocated_device::share_id>{}},
    {"consumedCapacity", amount_map<&kd::allocated_device::consumed_capacity>{}},
    {"bindingConditions", decode::strings<&kd::allocated_device::binding_conditions>{}},
};
constexpr field<kd::allocation_result> allocation_devices_fields[] = {
    {"results", decode::list<allocated_device_fields, &kd::allocation_result::devices>{}},
};
constexpr field<kd::allocation_result> allocation_fields[] = {
    {"devices", decode::flatten<allocation_devices_fields>{}},
    {"nodeSelector", decode::object<node_selector_fields, &kd::allocation_result::node_selector>{}},
};
constexpr field<kd::consumer_reference> consumer_fields[] = {
    {"apiGroup", decode::text<&kd::consumer_reference::api_group>{}},
    {"resource", decode::text<&kd::consumer_reference::resource>{}},
    {"name", decode::text<&kd::consumer_reference::name>{}},
    {"uid", decode::text<&kd::consumer_reference::uid>{}},
};
constexpr field<kd::resource_claim> claim_status_fields[] = {
    {"allocation", decode::object<allocation_fields, &kd::resource_claim::allocation>{}},
    {"reservedFor", decode::list<consumer_fields, &kd::resource_claim::reserved_for>{}},
};
struct owner_reference {
  std::string uid;
  bool controller = false;
};
constexpr field<owner_reference> owner_fields[] = {
    {"uid", decode::text<&owner_reference::uid>{}},
    {"controller", decode::boolean<&owner_reference::controller>{}},
};
struct owner_list {
  std::vector<owner_reference> owners;
};
constexpr field<kd::resource_claim> claim_metadata_fields[] = {
    {"name", decode::text<&kd::resource_claim::name>{}},
    {"namespace", decode::text<&kd::resource_claim::ns>{}},
    {"uid", decode::text<&kd::resource_claim::uid>{}},
    {"deletionTimestamp",
     [](context& x, dom::element e, kd::resource_claim& c) {
       preempt::timestamp unused = 0;
       c.deleting = true;
       return x.read_time(e, unused);
     },
     [](kd::resource_claim& c) { c.deleting = false; }},
    {"ownerReferences",
     [](context& x, dom::element e, kd::resource_claim& c) {
       owner_list list;
       if (!decode::list<owner_fields, &owner_list::owners>::read(x, e, list)) return false;
       c.controller_uid.reset();
       for (const owner_reference& o : list.owners)
         if (o.controller) {
           c.controller_uid = o.uid;
           break;
         }
       return true;
     },
     [](kd::resource_claim& c) { c.controller_uid.reset(); }},
    {"annotations",
     [](context& x, dom::element e, kd::resource_claim& c) {
       dom::object o;
       if (!x.read_object(e, o)) return false;
       for (dom::key_value_pair kv : o) {
         if (kv.key != "resource.kubernetes.io/extended-resource-claim") continue;
         std::string_view v;
         if (kv.value.get_string().get(v) == simdjson::SUCCESS)
           c.extended_resource_claim = v == "true";
       }
       return true;
     },
     [](kd::resource_claim& c) { c.extended_resource_claim = false; }},
};
constexpr field<kd::resource_claim> claim_fields[] = {
    {"metadata", decode::flatten<claim_metadata_fields>{}, required},
    {"spec", decode::flatten<claim_spec_fields>{}},
    {"status", decode::flatten<claim_status_fields>{}},
};

// ---- Objects known by name only ----------------------------------------------------------------

struct named_object {
  std::string name, ns;
};
constexpr field<named_object> named_metadata_fields[] = {
    {"name", decode::text<&named_object::name>{}},
    {"namespace", decode::text<&named_object::ns>{}},
};
constexpr field<named_object> named_fields[] = {
    {"metadata", decode::flatten<named_metadata_fields>{}, required},
};

}  // namespace

bool pod_claims_field::read(decode::context& x, dom::element e, pod_object& p) {
  return decode::list<pod_claim_fields, &pod_object::resource_claims>::read(x, e, p);
}

bool pod_claim_statuses_field::read(decode::context& x, dom::element e, pod_object& p) {
  return decode::list<pod_claim_status_fields, &pod_object::claim_statuses>::read(x, e, p);
}

bool add_resource_claim(decode::context& x, dom::element obj, std::uint32_t file,
                        cluster_dump& dump) {
  kd::resource_claim c;
  if (!read_named(x, obj, claim_fields, c, true)) return false;
  dump.dra.claims.push_back(std::move(c));
  dump.dra.claim_files.push_back(file);
  return true;
}

bool add_device_class(decode::context& x, dom::element obj, cluster_dump& dump) {
  kd::device_class c;
  if (!read_named(x, obj, class_fields, c, false)) return false;
  dump.dra.classes.push_back(std::move(c));
  return true;
}

bool add_resource_slice(decode::context& x, dom::element obj, cluster_dump& dump) {
  kd::resource_slice s;
  if (!read_named(x, obj, slice_fields, s, false)) return false;
  dump.dra.slices.push_back(std::move(s));
  return true;
}

bool add_claim_template(decode::context& x, dom::element obj, cluster_dump& dump) {
  named_object o;
  if (!read_named(x, obj, named_fields, o, true)) return false;
  ++dump.dra.claim_templates;
  return true;
}

bool add_taint_rule(decode::context& x, dom::element obj, cluster_dump& dump) {
  named_object o;
  if (!read_named(x, obj, named_fields, o, false)) return false;
  dump.dra.taint_rules.push_back(std::move(o.name));
  return true;
}

}  // namespace whatif::kinds::dra
