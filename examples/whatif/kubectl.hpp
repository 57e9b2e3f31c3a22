// examples/whatif/kubectl.hpp - preempt-whatif as a kubectl plugin: reads the cluster of the
// current context through `kubectl get nodes,pods,pdb,priorityclasses -A -o json`.
//
// kubectl is found on PATH and run with its standard output read through a pipe (the same
// stream reader as any input, with the same size limit) and its standard error kept in a
// temporary file. A kubectl that cannot be started, or that exits with a status other than 0, is
// an error naming the command and the first line of kubectl's standard error.
//
// Blocks until kubectl exits. Allocation failure throws std::bad_alloc; nothing else throws.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_KUBECTL_HPP
#define PREEMPT_WHATIF_KUBECTL_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input.hpp"

namespace whatif {

// The arguments the plugin passes to kubectl.
inline const std::vector<std::string>& kubectl_get_arguments() {
  static const std::vector<std::string> args = {"get", "nodes,pods,pdb,priorityclasses", "-A", "-o",
                                                "json"};
  return args;
}

// The dynamic resource allocation kinds (resource.k8s.io/v1) the plugin reads in a second call,
// so that a cluster that does not serve them still answers the first one. When it fails, a pod
// that claims devices is refused rather than decided without its claims.
inline const std::vector<std::string>& kubectl_get_devices_arguments() {
  static const std::vector<std::string> args = {
      "get", "resourceclaims,resourceslices,deviceclasses,resourceclaimtemplates", "-A", "-o",
      "json"};
  return args;
}

// Runs `kubectl <args>` and reads its standard output into `out` (named "kubectl get ...").
std::optional<load_error> read_kubectl(const std::vector<std::string>& args, std::uint64_t max_size,
                                       source& out);

// True when the program was started under the plugin's name (argv[0] ends in
// "kubectl-preempt_whatif").
bool invoked_as_kubectl_plugin(std::string_view argv0);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_KUBECTL_HPP
