// examples/whatif/io/kubectl.hpp - preempt-whatif as a kubectl plugin: reads the cluster through
// kubectl, streaming its output into the loader.
//
// read_cluster_through_kubectl() asks `kubectl api-resources -o name` which of the resource types
// the tool reads the cluster serves (kubectl fails a whole `get` when one type is unknown: a
// cluster without the DRA or pod-group APIs would refuse it), then runs `kubectl get <the served
// ones> -A -o json` and hands its standard output, a pipe, to the loader, which reads it a window
// at a time (loader::add_cluster(open_input&)): memory holds the model and a window, as with any
// stream, not kubectl's whole output. The types not served are named in a warning (the cluster
// holds no such objects). --context, --kubeconfig, -n/--namespace and --request-timeout are passed
// to every kubectl command; `-A` reads every namespace whatever -n says. kubectl is found on PATH;
// the rest of the environment (KUBECONFIG, ...) is its own.
//
// Errors name the command and kubectl's own error line: the first line of its standard error
// that is an error ("error: ...", "Error from server ...", "Unable to connect to the server ...",
// "The connection to the server ..."), else the last line that is not a warning or a klog line
// (kubectl prints warnings, and client-go logs "E0520 10:00:00 ... memcache.go ..." lines, before
// the error that ends it). When kubectl fails, its error wins over what the loader made of its
// partial output.
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

#include "io/input.hpp"
#include "io/loader.hpp"

namespace whatif {

// What the plugin passes through to kubectl ("" = not given).
struct kubectl_options {
  std::string context, kubeconfig, ns, request_timeout;
};

// The resource types the tool reads, as `kubectl api-resources -o name` names them.
const std::vector<std::string>& kubectl_resources();

// Reads the cluster through kubectl into `dump` (see above): the types not served go to `warnings`.
std::optional<load_error> read_cluster_through_kubectl(const kubectl_options& options,
                                                       std::uint64_t max_size, loader& load,
                                                       cluster_dump& dump,
                                                       std::vector<std::string>& warnings);

// The namespace of the current context (`kubectl config view --minify`), "default" when it names
// none: where a --pod-name without a namespace is looked for, as kubectl looks for names.
std::optional<load_error> kubectl_namespace(const kubectl_options& options, std::string& ns);

// The kind of a resource type of kubectl_resources() ("persistentvolumeclaims" ->
// "PersistentVolumeClaim"), "" for another.
std::string_view kind_of_resource(std::string_view resource);

// kubectl's error line among what it wrote to its standard error (see above).
std::string kubectl_error_line(std::string_view standard_error);

// True when the program was started under the plugin's name (argv[0] ends in
// "kubectl-preempt_whatif").
bool invoked_as_kubectl_plugin(std::string_view argv0);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_KUBECTL_HPP
