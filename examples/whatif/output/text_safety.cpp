// examples/whatif/output/text_safety.cpp - see text_safety.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/text_safety.hpp"

#include <utility>

#include "output/one_line.hpp"

namespace whatif {

namespace {

void escape(std::string& s) {
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b >= 0x7f) {  // something to escape, or UTF-8 to check: one_line decides
      s = one_line(s);
      return;
    }
  }
}

void escape(std::vector<std::string>& list) {
  for (std::string& s : list) escape(s);
}

void escape(std::vector<victim_info>& victims) {
  for (victim_info& v : victims) {
    escape(v.name);
    escape(v.budgets);
    escape(v.unit);
    escape(v.reason);
  }
}

}  // namespace

std::string shown(std::string_view s) { return one_line(s); }

report for_text(const report& r) {
  report t = r;
  escape(t.preemptor);
  escape(t.priority_class);
  k8s::resource_list requests;
  for (auto [name, amount] : t.requests) {
    escape(name);
    requests.set(name, amount);
  }
  t.requests = std::move(requests);
  escape(t.nominated_node);
  escape(t.victims);
  escape(t.cleared_nominations);
  escape(t.message);
  for (node_report& n : t.nodes) {
    escape(n.name);
    escape(n.reason);
    escape(n.victims);
  }
  escape(t.decided_by);
  for (auto& [node, value] : t.tie_break) {
    escape(node);
    escape(value);
  }
  escape(t.warnings);
  escape(t.not_modelled);
  return t;
}

group_report for_text(const group_report& r) {
  group_report t = r;
  escape(t.group);
  escape(t.policy);
  escape(t.scheduling);
  for (auto& [member, node] : t.members) {
    escape(member);
    escape(node);
  }
  escape(t.message);
  escape(t.victims);
  escape(t.placement);
  escape(t.warnings);
  escape(t.not_modelled);
  return t;
}

}  // namespace whatif
