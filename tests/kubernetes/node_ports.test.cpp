// SPDX-License-Identifier: Apache-2.0
// The NodePorts filter, with the scenarios of upstream's node_ports_test.go.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "preempt/kubernetes/node_ports.hpp"

namespace node_ports_test {

namespace k8s = preempt::kubernetes;

namespace {

// "UDP/127.0.0.1/8080" → a host port.
k8s::host_port port(const std::string& spec) {
  const auto a = spec.find('/'), b = spec.rfind('/');
  return {spec.substr(a + 1, b - a - 1), spec.substr(0, a), std::stoi(spec.substr(b + 1))};
}

bool fits(std::vector<std::string> want, std::vector<std::string> used) {
  std::vector<k8s::host_port> w, u;
  for (const auto& s : want) w.push_back(port(s));
  for (const auto& s : used) u.push_back(port(s));
  k8s::used_ports node;
  node.add(u);
  return node.fits(w);
}

}  // namespace

TEST_CASE("kubernetes node ports: upstream's conflict table") {
  CHECK(fits({"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/9090"}));        // other port
  CHECK_FALSE(fits({"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/8080"}));  // same udp port
  CHECK_FALSE(fits({"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"}));  // same tcp port
  CHECK(fits({"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.2/8080"}));        // different host ip
  CHECK(fits({"UDP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"}));        // different protocol
  CHECK_FALSE(fits({"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/8080"}));
  CHECK_FALSE(fits({"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"},
                   {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"}));
  CHECK_FALSE(fits({"TCP/0.0.0.0/8001"}, {"TCP/127.0.0.1/8001"}));  // 0.0.0.0 wants all
  CHECK_FALSE(fits({"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"}, {"TCP/127.0.0.1/8001"}));
  CHECK_FALSE(fits({"TCP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001"}));  // 0.0.0.0 held
  CHECK(fits({"UDP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001"}));        // other protocol
  CHECK_FALSE(fits({"UDP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"}));
}

TEST_CASE("kubernetes node ports: empty hostIP is 0.0.0.0, empty protocol is TCP") {
  CHECK_FALSE(fits({"/10.0.0.1/80"}, {"TCP//80"}));
  CHECK_FALSE(fits({"TCP//80"}, {"/10.0.0.1/80"}));
  CHECK(fits({"UDP//80"}, {"//80"}));
  CHECK(fits({"TCP//0"}, {"TCP//0"}));  // hostPort 0: no host port
}

TEST_CASE("kubernetes node ports: the set forgets a port removed once (HostPortInfo)") {
  k8s::used_ports node;
  const k8s::host_port p80{"", "TCP", 80};
  node.add(p80);
  node.add(k8s::host_port{"0.0.0.0", "", 80});  // the same triple once sanitized
  CHECK(node.size() == 1);
  const std::vector<k8s::host_port> want{p80};
  CHECK_FALSE(node.fits(want));
  node.remove(p80);
  CHECK(node.fits(want));
  node.add(p80);
  CHECK_FALSE(node.fits(want));
}

TEST_CASE(
    "kubernetes node ports: a nominated pod's ports come and go without touching the node's") {
  k8s::used_ports node;
  const std::vector<k8s::host_port> p80{{"", "TCP", 80}}, p81{{"", "TCP", 81}};
  node.add(p80);
  node.add_temporary(p80, 1);  // shares the node's port: adds nothing
  node.add_temporary(p81, 2);
  CHECK(node.size() == 2);
  node.remove_temporary(1);
  node.remove_temporary(2);
  CHECK(node.size() == 1);
  CHECK_FALSE(node.fits(p80));  // still held by the node's pod
  CHECK(node.fits(p81));
}

}  // namespace node_ports_test
