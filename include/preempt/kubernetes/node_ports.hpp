// preempt/kubernetes/node_ports.hpp - kube-scheduler's NodePorts filter: host ports in use on a
// node against the host ports a pod wants.
//
// A pod wants the ports of its containers (and of its restartable init containers, the sidecars)
// with hostPort > 0 (upstream's GetHostPorts). A node's ports in use form a set of
// (hostIP, protocol, port), an empty hostIP reading as 0.0.0.0 and an empty protocol as TCP
// (HostPortInfo). The set has set semantics, as upstream's: adding a triple twice and removing it
// once leaves it free. A wanted port conflicts (HostPortInfo.CheckConflict):
//   - hostIP 0.0.0.0: with the same (protocol, port) under any hostIP;
//   - any other hostIP: with the same (protocol, port) under that hostIP or under 0.0.0.0.
// A conflict is Unschedulable with the reason "node(s) didn't have free ports for the requested
// pod ports": evicting the pod that holds the port frees it.
//
// used_ports is the per-node part of a what-if node state: add/remove a pod's ports as victims
// are removed and reprieved. It needs no cluster-wide state (upstream's NodePorts has no
// PreFilter extensions). Pods nominated to the node are added to a copy of the node upstream
// (RunFilterPluginsWithNominatedPods), which is then dropped: add_temporary/remove_temporary give
// that here, undoing exactly what the pod added (a port it shares with a pod of the node stays
// held), where remove() would drop the shared port as upstream's set does.
//
// Complexity: O(w · u) per check for w wanted and u used ports (both a handful). Allocation: the
// set grows to the node's distinct ports once, then reuses its storage across reset(). No
// exceptions; one set per thread.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_NODE_PORTS_HPP
#define PREEMPT_KUBERNETES_NODE_PORTS_HPP

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view node_ports_reason =
    "node(s) didn't have free ports for the requested pod ports";
inline constexpr std::string_view bind_all_host_ip = "0.0.0.0";

// One container port with its host side, as written in the pod (hostIP and protocol may be "").
struct host_port {
  std::string host_ip;
  std::string protocol;
  std::int32_t port = 0;  // hostPort; <= 0: no host port (never conflicts, never held)
};

namespace detail {
inline std::string_view sanitized_ip(std::string_view ip) noexcept {
  return ip.empty() ? bind_all_host_ip : ip;
}
inline std::string_view sanitized_protocol(std::string_view protocol) noexcept {
  return protocol.empty() ? std::string_view("TCP") : protocol;
}
}  // namespace detail

// The (hostIP, protocol, port) triples in use on a node, as upstream's HostPortInfo.
class used_ports {
 public:
  void clear() noexcept { used_.clear(); }
  bool empty() const noexcept { return used_.empty(); }
  std::size_t size() const noexcept { return used_.size(); }

  void add(const host_port& p) {
    if (p.port <= 0 || find(p) != used_.size()) return;
    used_.push_back(
        entry{detail::sanitized_ip(p.host_ip), detail::sanitized_protocol(p.protocol), p.port, 0});
  }
  void remove(const host_port& p) noexcept {
    if (p.port <= 0) return;
    const std::size_t i = find(p);
    if (i == used_.size()) return;
    used_[i] = used_.back();
    used_.pop_back();
  }
  void add(std::span<const host_port> ports) {
    for (const host_port& p : ports) add(p);
  }
  // Adds the ports of a pod that is not one of the node's (a nominated pod), tagged with `owner`
  // (non-zero, unique among such pods); remove_temporary(owner) takes back what it added.
  void add_temporary(std::span<const host_port> ports, std::uintptr_t owner) {
    for (const host_port& p : ports) {
      if (p.port <= 0 || find(p) != used_.size()) continue;
      used_.push_back(entry{detail::sanitized_ip(p.host_ip), detail::sanitized_protocol(p.protocol),
                            p.port, owner});
    }
  }
  void remove_temporary(std::uintptr_t owner) noexcept {
    for (std::size_t i = 0; i < used_.size();) {
      if (used_[i].owner == owner) {
        used_[i] = used_.back();
        used_.pop_back();
      } else {
        ++i;
      }
    }
  }
  void remove(std::span<const host_port> ports) noexcept {
    for (const host_port& p : ports) remove(p);
  }

  // HostPortInfo.CheckConflict.
  bool conflicts(const host_port& want) const noexcept {
    if (want.port <= 0) return false;
    const std::string_view ip = detail::sanitized_ip(want.host_ip);
    const std::string_view protocol = detail::sanitized_protocol(want.protocol);
    for (const entry& e : used_) {
      if (e.port != want.port || e.protocol != protocol) continue;
      if (ip == bind_all_host_ip || e.ip == ip || e.ip == bind_all_host_ip) return true;
    }
    return false;
  }
  // upstream's fitsPorts: no wanted port conflicts.
  bool fits(std::span<const host_port> wanted) const noexcept {
    for (const host_port& w : wanted)
      if (conflicts(w)) return false;
    return true;
  }

 private:
  // Views into the pods' host_port strings (or the constants above): the pods outlive the set's
  // use for one node.
  struct entry {
    std::string_view ip;
    std::string_view protocol;
    std::int32_t port;
    std::uintptr_t owner;  // 0: a port of the node's pods; else the temporary pod's tag
  };
  std::size_t find(const host_port& p) const noexcept {
    const std::string_view ip = detail::sanitized_ip(p.host_ip);
    const std::string_view protocol = detail::sanitized_protocol(p.protocol);
    for (std::size_t i = 0; i < used_.size(); ++i)
      if (used_[i].port == p.port && used_[i].ip == ip && used_[i].protocol == protocol) return i;
    return used_.size();
  }
  std::vector<entry> used_;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_NODE_PORTS_HPP
