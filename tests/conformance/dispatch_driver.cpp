// tests/conformance/dispatch_driver.cpp - preempt's dispatcher on one preemption decision, with a
// recording eviction client, for the asynchronous-preemption comparison with kube-scheduler
// (`conform async`). Reads the decision, one item per line:
//
//   mode async|inline               async: a manual executor drained first-in-first-out
//   preemptor UID prio=P
//   nominated UID prio=P            a pod nominated to the node, in nomination order
//   victim UID terminating=0|1 outcome=evicted|not_found|failed
//
// and prints what the dispatcher did, in order: `clear UID` (a nomination cleared), `evict UID
// OUTCOME` (an eviction call and the client's answer), `activate UID` (the preemptor woken up),
// and finally `nominated 0|1` (whether the preemptor ends nominated to the node).
//
//   preempt_conformance_dispatch_driver FILE
//
// Exit status 0, or 2 for an unreadable file.
//
// SPDX-License-Identifier: Apache-2.0
#include <charconv>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/manual_executor.hpp"
#include "preempt/preempt.hpp"

namespace {

using pod = preempt::model::resource_pod;

struct event_log {
  std::mutex mutex;
  std::vector<std::string> lines;
  void add(std::string s) {
    std::lock_guard lock(mutex);
    lines.push_back(std::move(s));
  }
};

// Answers each eviction as the input says, and records it.
struct recording_client {
  event_log* out;
  std::map<preempt::model::pod_id, preempt::eviction_outcome>* outcomes;
  preempt::eviction_result evict(const pod& victim, const pod&) {
    const auto it = outcomes->find(victim.uid());
    const auto o = it == outcomes->end() ? preempt::eviction_outcome::evicted : it->second;
    out->add("evict " + std::to_string(victim.uid()) + " " +
             (o == preempt::eviction_outcome::evicted     ? "evicted"
              : o == preempt::eviction_outcome::not_found ? "not_found"
                                                          : "failed"));
    if (o == preempt::eviction_outcome::failed)
      return preempt::eviction_result::failed("delete pod failed");
    return o == preempt::eviction_outcome::not_found ? preempt::eviction_result::not_found()
                                                     : preempt::eviction_result::evicted();
  }
};

struct hooks {
  event_log* out;
  void reactivate(const pod& p) const { out->add("activate " + std::to_string(p.uid())); }
  void nominations_cleared(std::size_t, std::span<const preempt::pod_uid_t<pod>> pods) const {
    for (const auto& p : pods) out->add("clear " + std::to_string(p));
  }
};

std::optional<std::int64_t> integer(std::string_view s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

template <class Dispatcher>
void dispatch(Dispatcher& d, const pod& preemptor, std::span<const pod* const> victims) {
  d.preempt_on(preemptor, 0, victims);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: preempt_conformance_dispatch_driver FILE\n";
    return 2;
  }
  std::ifstream file(argv[1]);
  if (!file) {
    std::cerr << "preempt_conformance_dispatch_driver: " << argv[1] << ": cannot read\n";
    return 2;
  }
  std::string mode = "async";
  std::optional<pod> preemptor;
  std::vector<pod> nominated, victims;
  std::map<preempt::model::pod_id, preempt::eviction_outcome> outcomes;
  nominated.reserve(64);
  victims.reserve(64);
  for (std::string text; std::getline(file, text);) {
    std::istringstream in(text);
    std::string kind, id;
    in >> kind >> id;
    if (kind.empty() || kind[0] == '#') continue;
    if (kind == "mode") {
      mode = id;
      continue;
    }
    std::map<std::string, std::string> f;
    for (std::string tok; in >> tok;)
      if (const auto eq = tok.find('='); eq != std::string::npos)
        f[tok.substr(0, eq)] = tok.substr(eq + 1);
    const auto uid = integer(id);
    const auto prio = integer(f.count("prio") ? f["prio"] : "0");
    if (!uid || !prio || nominated.size() == 64 || victims.size() == 64) {
      std::cerr << "preempt_conformance_dispatch_driver: " << argv[1] << ": bad line: " << text
                << "\n";
      return 2;
    }
    preempt::model::pod_spec spec{
        .uid = static_cast<preempt::model::pod_id>(*uid),
        .priority = static_cast<std::int32_t>(*prio),
        .requests = {},
        .start_time = std::nullopt,
        .namespace_id = 0,
        .terminating = false,
        .terminating_by_preemption = false,
        .preemption_policy = preempt::preemption_policy::preempt_lower_priority};
    if (kind == "preemptor") {
      preemptor.emplace(std::move(spec));
    } else if (kind == "nominated") {
      nominated.emplace_back(std::move(spec));
    } else if (kind == "victim") {
      spec.terminating = f["terminating"] == "1";
      victims.emplace_back(std::move(spec));
      const std::string& o = f["outcome"];
      outcomes[victims.back().uid()] = o == "failed"      ? preempt::eviction_outcome::failed
                                       : o == "not_found" ? preempt::eviction_outcome::not_found
                                                          : preempt::eviction_outcome::evicted;
    }
  }
  if (!preemptor) {
    std::cerr << "preempt_conformance_dispatch_driver: " << argv[1] << ": no preemptor line\n";
    return 2;
  }

  event_log out;
  preempt::nomination_ledger<pod> ledger(1);
  for (const pod& p : nominated) ledger.nominate(p, 0);
  preempt::in_flight_table<pod> table;
  recording_client client{&out, &outcomes};
  std::vector<const pod*> chosen;
  for (const pod& v : victims) chosen.push_back(&v);
  if (mode == "inline") {
    preempt::dispatcher<pod, preempt::inline_executor, recording_client, hooks> d(
        ledger, table, client, preempt::inline_executor{}, hooks{&out});
    dispatch(d, *preemptor, chosen);
  } else {
    preempt::manual_context ctx;
    preempt::dispatcher<pod, preempt::manual_executor, recording_client, hooks> d(
        ledger, table, client, ctx.get_executor(), hooks{&out});
    dispatch(d, *preemptor, chosen);
    ctx.drain();
    d.wait_idle();
  }
  for (const std::string& l : out.lines) std::cout << l << "\n";
  std::cout << "nominated "
            << (ledger.node_of(preemptor->uid()) == std::optional<std::size_t>(0) ? 1 : 0) << "\n";
  return 0;
}
