// tests/conformance/dispatch_driver.cpp - preempt's dispatcher on a sequence of preemption
// decisions, with an eviction client that makes the calls kube-scheduler's PreemptPod makes, for
// the comparison with kube-scheduler's asynchronous (and synchronous) preemption (`conform
// async`). Reads a scenario, one item per line:
//
//   mode async|inline               async: a manual executor, one task at a time: a decision's
//                                   first task right after its apply (upstream's goroutine starts
//                                   at once), the others first in, first out
//   nominated UID prio=P node=N     a pending pod nominated to node N, in nomination order
//   preemptor UID prio=P node=N at=K|end
//                                   a decision for this pod on node N, applied once K tasks of the
//                                   executor have run (at=end: once all work so far is done)
//   victim UID of=PREEMPTOR terminating=0|1 outcome=evicted|not_found|failed_patch|failed_delete
//                                   the decision's victims, in the order chosen
//
// and prints what happened, in order (`gates=` lists every decided preemptor's
// is_preemption_running, 1 or 0, in decision order: before the call / after it):
//
//   apply P                         the decision is applied (inline: its calls follow)
//   decide P                        the apply returned
//   nominate P N                    the preemptor ends the apply nominated to node N
//   call patch V nominatedNodeName= ok gates=B/A    a lower-priority nomination cleared
//   call patch V DisruptionTarget ok|not_found|failed gates=B/A
//   call delete V ok|failed gates=B/A
//   activate P                      the preemptor woken up
//   end gates=G                     everything done
//
// The client follows upstream's PreemptPod: the DisruptionTarget patch, then the delete unless the
// patch failed or found the pod gone. It reports a victim gone to the in-flight table as the
// caller's informer would: a victim already gone when its eviction starts, a deletion once the
// API accepted it.
//
//   preempt_conformance_dispatch_driver FILE
//
// Exit status 0, or 2 for an unreadable file.
//
// SPDX-License-Identifier: Apache-2.0
#include <charconv>
#include <cstdint>
#include <fstream>
#include <functional>
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
using uid = preempt::model::pod_id;

enum class outcome { evicted, not_found, failed_patch, failed_delete };

struct event_log {
  std::mutex mutex;
  std::vector<std::string> lines;
  void add(std::string s) {
    std::lock_guard lock(mutex);
    lines.push_back(std::move(s));
  }
};

// The decided preemptors' gates, "1,0,...".
struct gate_reader {
  std::vector<uid> decided;
  std::function<bool(uid)> running;
  std::string read() const {
    std::string s;
    for (uid p : decided) {
      if (!s.empty()) s += ",";
      s += std::to_string(p) + ":" + (running(p) ? "1" : "0");
    }
    return s;
  }
};

// Makes PreemptPod's calls as the scenario answers them, and records them.
struct recording_client {
  event_log* out;
  const std::map<uid, outcome>* outcomes;
  const gate_reader* gates;
  preempt::in_flight_table<pod>* table;

  void call(const std::string& what, const std::string& result, const std::string& before) {
    out->add("call " + what + " " + result + " gates=" + before + "/" + gates->read());
  }

  preempt::eviction_result evict(const pod& victim, const pod&) {
    const auto it = outcomes->find(victim.uid());
    const outcome o = it == outcomes->end() ? outcome::evicted : it->second;
    const std::string v = std::to_string(victim.uid());
    if (o == outcome::not_found)  // the informer saw it go before
      table->report_victim(victim.uid(), preempt::victim_state::gone);
    std::string before = gates->read();
    switch (o) {
      case outcome::not_found:
        call("patch " + v + " DisruptionTarget", "not_found", before);
        return preempt::eviction_result::not_found();
      case outcome::failed_patch:
        call("patch " + v + " DisruptionTarget", "failed", before);
        return preempt::eviction_result::failed("patch pod status failed");
      case outcome::failed_delete:
        call("patch " + v + " DisruptionTarget", "ok", before);
        before = gates->read();
        call("delete " + v, "failed", before);
        return preempt::eviction_result::failed("delete pod failed");
      case outcome::evicted: break;
    }
    call("patch " + v + " DisruptionTarget", "ok", before);
    before = gates->read();
    table->report_victim(victim.uid(), preempt::victim_state::gone);  // the informer sees it go
    call("delete " + v, "ok", before);
    return preempt::eviction_result::evicted();
  }
};

struct hooks {
  event_log* out;
  const gate_reader* gates;
  void reactivate(const pod& p) const { out->add("activate " + std::to_string(p.uid())); }
  void nominations_cleared(std::size_t, std::span<const preempt::pod_uid_t<pod>> pods) const {
    for (const auto& p : pods) {
      const std::string g = gates->read();
      out->add("call patch " + std::to_string(p) + " nominatedNodeName= ok gates=" + g + "/" + g);
    }
  }
};

std::optional<std::int64_t> integer(std::string_view s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

struct decision {
  std::size_t preemptor = 0;  // index into preemptors
  std::size_t node = 0;
  std::optional<std::size_t> at;  // tasks run before it; nullopt: all work done
  std::vector<std::size_t> victims;
};

struct scenario {
  std::string mode = "async";
  std::vector<pod> preemptors, nominated, victims;
  std::vector<std::size_t> nominated_node;
  std::vector<decision> decisions;
  std::map<uid, outcome> outcomes;
  std::size_t nodes = 1;
};

bool read(std::istream& file, const char* name, scenario& sc) {
  std::map<uid, std::size_t> decision_of;
  for (std::string text; std::getline(file, text);) {
    std::istringstream in(text);
    std::string kind, id;
    in >> kind >> id;
    if (kind.empty() || kind[0] == '#') continue;
    if (kind == "mode") {
      sc.mode = id;
      continue;
    }
    std::map<std::string, std::string> f;
    for (std::string tok; in >> tok;)
      if (const auto eq = tok.find('='); eq != std::string::npos)
        f[tok.substr(0, eq)] = tok.substr(eq + 1);
    const auto n = integer(id);
    const auto prio = integer(f.count("prio") ? f["prio"] : "0");
    const auto node = integer(f.count("node") ? f["node"] : "0");
    if (!n || !prio || !node || *node < 0 || sc.victims.size() == 256) {
      std::cerr << "preempt_conformance_dispatch_driver: " << name << ": bad line: " << text
                << "\n";
      return false;
    }
    preempt::model::pod_spec spec{
        .uid = static_cast<uid>(*n),
        .priority = static_cast<std::int32_t>(*prio),
        .requests = {},
        .start_time = std::nullopt,
        .namespace_id = 0,
        .terminating = false,
        .terminating_by_preemption = false,
        .preemption_policy = preempt::preemption_policy::preempt_lower_priority};
    sc.nodes = std::max(sc.nodes, static_cast<std::size_t>(*node) + 1);
    if (kind == "preemptor") {
      decision d;
      d.preemptor = sc.preemptors.size();
      d.node = static_cast<std::size_t>(*node);
      if (f["at"] != "end") {
        const auto at = integer(f["at"]);
        if (!at || *at < 0) {
          std::cerr << "preempt_conformance_dispatch_driver: " << name << ": bad at: " << text
                    << "\n";
          return false;
        }
        d.at = static_cast<std::size_t>(*at);
      }
      decision_of[spec.uid] = sc.decisions.size();
      sc.preemptors.emplace_back(std::move(spec));
      sc.decisions.push_back(d);
    } else if (kind == "nominated") {
      sc.nominated.emplace_back(std::move(spec));
      sc.nominated_node.push_back(static_cast<std::size_t>(*node));
    } else if (kind == "victim") {
      const auto of = integer(f["of"]);
      if (!of || !decision_of.count(static_cast<uid>(*of))) {
        std::cerr << "preempt_conformance_dispatch_driver: " << name
                  << ": a victim of an unknown preemptor: " << text << "\n";
        return false;
      }
      spec.terminating = f["terminating"] == "1";
      sc.decisions[decision_of[static_cast<uid>(*of)]].victims.push_back(sc.victims.size());
      const std::string& o = f["outcome"];
      sc.outcomes[spec.uid] = o == "failed_patch"    ? outcome::failed_patch
                              : o == "failed_delete" ? outcome::failed_delete
                              : o == "not_found"     ? outcome::not_found
                                                     : outcome::evicted;
      sc.victims.emplace_back(std::move(spec));
    }
  }
  return true;
}

template <class Dispatcher, class Run, class Start>
void apply_all(scenario& sc, Dispatcher& d, preempt::nomination_ledger<pod>& ledger,
               gate_reader& gates, event_log& out, Run&& run_tasks, Start&& start) {
  for (const decision& dc : sc.decisions) {
    run_tasks(dc.at);
    const pod& p = sc.preemptors[dc.preemptor];
    std::vector<const pod*> chosen;
    for (std::size_t v : dc.victims) chosen.push_back(&sc.victims[v]);
    gates.decided.push_back(p.uid());
    out.add("apply " + std::to_string(p.uid()));
    const auto r = d.preempt_on(p, dc.node, chosen);
    out.add("decide " + std::to_string(p.uid()));
    if (ledger.node_of(p.uid()) == std::optional<std::size_t>(dc.node))
      out.add("nominate " + std::to_string(p.uid()) + " " + std::to_string(dc.node));
    if (r.started) start();
  }
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
  scenario sc;
  sc.preemptors.reserve(16);
  sc.nominated.reserve(256);
  sc.victims.reserve(256);
  if (!read(file, argv[1], sc)) return 2;
  if (sc.decisions.empty()) {
    std::cerr << "preempt_conformance_dispatch_driver: " << argv[1] << ": no preemptor line\n";
    return 2;
  }

  event_log out;
  preempt::nomination_ledger<pod> ledger(sc.nodes);
  for (std::size_t i = 0; i < sc.nominated.size(); ++i)
    ledger.nominate(sc.nominated[i], sc.nominated_node[i]);
  preempt::in_flight_table<pod> table;
  gate_reader gates;
  gates.running = [&](uid p) { return table.is_preemption_running(p); };
  recording_client client{&out, &sc.outcomes, &gates, &table};
  if (sc.mode == "inline") {
    preempt::dispatcher<pod, preempt::inline_executor, recording_client, hooks> d(
        ledger, table, client, preempt::inline_executor{}, hooks{&out, &gates});
    apply_all(
        sc, d, ledger, gates, out, [](std::optional<std::size_t>) {}, [] {});
  } else {
    preempt::manual_context ctx;
    preempt::dispatcher<pod, preempt::manual_executor, recording_client, hooks> d(
        ledger, table, client, ctx.get_executor(), hooks{&out, &gates});
    std::size_t ran = 0;
    apply_all(
        sc, d, ledger, gates, out,
        [&](std::optional<std::size_t> at) {
          while ((!at || ran < *at) && ctx.run_one(preempt::manual_context::order::fifo)) ++ran;
        },
        [&] {  // the decision's background work begins at once: its task is the newest
          if (ctx.run_one(preempt::manual_context::order::lifo)) ++ran;
        });
    ctx.drain();
    d.wait_idle();
  }
  out.add("end gates=" + gates.read());
  for (const std::string& l : out.lines) std::cout << l << "\n";
  return 0;
}
