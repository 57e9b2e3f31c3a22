// examples/whatif/io/kubectl.cpp - see kubectl.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/kubectl.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <set>

#include "io/sniff.hpp"

extern char** environ;

namespace whatif {

namespace {

// Every kubectl command gets the pass-through flags after its own arguments.
std::vector<std::string> with_flags(std::vector<std::string> args, const kubectl_options& o) {
  const auto add = [&](const char* flag, const std::string& value) {
    if (value.empty()) return;
    args.emplace_back(flag);
    args.push_back(value);
  };
  add("--context", o.context);
  add("--kubeconfig", o.kubeconfig);
  add("--namespace", o.ns);
  add("--request-timeout", o.request_timeout);
  return args;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string c = "kubectl";
  for (const std::string& a : args) c += " " + a;
  return c;
}

// One kubectl command: started with its standard output on a pipe and its standard error in a
// temporary file; finish() waits for it. The destructor closes the pipe (a kubectl still
// writing gets SIGPIPE) and waits for a kubectl still running.
class kubectl_run {
 public:
  explicit kubectl_run(std::vector<std::string> args)
      : args_(std::move(args)), command_(command_line(args_)) {}
  kubectl_run(const kubectl_run&) = delete;
  kubectl_run& operator=(const kubectl_run&) = delete;
  ~kubectl_run() {
    close_output();
    (void)finish();
    if (errors_ != nullptr) std::fclose(errors_);
  }

  const std::string& command() const noexcept { return command_; }
  int output() const noexcept { return out_; }

  std::optional<load_error> start() {
    errors_ = std::tmpfile();
    if (errors_ == nullptr)
      return load_error{command_ + ": cannot make a temporary file: " + std::strerror(errno)};
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      return load_error{command_ + ": cannot make a pipe: " + std::strerror(errno)};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fileno(errors_), STDERR_FILENO);
    std::vector<std::string> argv_strings{"kubectl"};
    argv_strings.insert(argv_strings.end(), args_.begin(), args_.end());
    std::vector<char*> argv;
    for (std::string& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int spawned = ::posix_spawnp(&pid_, "kubectl", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (spawned != 0) {
      ::close(fds[0]);
      pid_ = -1;
      return load_error{"cannot run kubectl: " + std::string(std::strerror(spawned)) +
                        " (the plugin reads the cluster with `" + command_ +
                        "`; give --cluster FILE to read a dump instead)"};
    }
    out_ = fds[0];
    return std::nullopt;
  }

  void close_output() {
    if (out_ >= 0) ::close(out_);
    out_ = -1;
  }

  // Waits for kubectl; true when it exited with status 0.
  bool finish() {
    if (pid_ > 0) {
      while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {}
      pid_ = -1;
      waited_ = true;
    }
    return waited_ && WIFEXITED(status_) && WEXITSTATUS(status_) == 0;
  }
  bool killed_by_sigpipe() const noexcept {
    return waited_ && WIFSIGNALED(status_) && WTERMSIG(status_) == SIGPIPE;
  }

  // "`kubectl ...` failed (exit status 1): <kubectl's error line>".
  std::string failure() const {
    std::string m = "`" + command_ + "` failed (";
    m += WIFEXITED(status_) ? "exit status " + std::to_string(WEXITSTATUS(status_))
                            : "signal " + std::to_string(WTERMSIG(status_));
    m += ")";
    const std::string line = kubectl_error_line(standard_error());
    if (!line.empty()) m += ": " + line;
    return m;
  }

  std::string standard_error() const {
    std::string text;
    if (errors_ == nullptr) return text;
    std::rewind(errors_);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, errors_)) > 0;) text.append(buf, n);
    return text;
  }

 private:
  std::vector<std::string> args_;
  std::string command_;
  std::FILE* errors_ = nullptr;
  pid_t pid_ = -1;
  int out_ = -1;
  int status_ = 0;
  bool waited_ = false;
};

// Runs a kubectl command with a short output (api-resources, config view) and reads it whole.
std::optional<load_error> capture(kubectl_run& k, std::string& out) {
  if (auto e = k.start()) return e;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(k.output(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  k.close_output();
  return std::nullopt;
}

std::string join(const std::vector<std::string>& list, std::string_view sep) {
  std::string s;
  for (const std::string& x : list) s += (s.empty() ? "" : std::string(sep)) + x;
  return s;
}

}  // namespace

const std::vector<std::string>& kubectl_resources() {
  static const std::vector<std::string> resources = {"nodes",
                                                     "pods",
                                                     "poddisruptionbudgets.policy",
                                                     "priorityclasses.scheduling.k8s.io",
                                                     "namespaces",
                                                     "podgroups.scheduling.k8s.io",
                                                     "compositepodgroups.scheduling.k8s.io",
                                                     "runtimeclasses.node.k8s.io",
                                                     "limitranges",
                                                     "persistentvolumeclaims",
                                                     "persistentvolumes",
                                                     "storageclasses.storage.k8s.io",
                                                     "csinodes.storage.k8s.io",
                                                     "csidrivers.storage.k8s.io",
                                                     "volumeattachments.storage.k8s.io",
                                                     "csistoragecapacities.storage.k8s.io",
                                                     "resourceclaims.resource.k8s.io",
                                                     "resourceclaimtemplates.resource.k8s.io",
                                                     "resourceslices.resource.k8s.io",
                                                     "deviceclasses.resource.k8s.io",
                                                     "devicetaintrules.resource.k8s.io"};
  return resources;
}

std::string_view kind_of_resource(std::string_view resource) {
  static constexpr std::pair<std::string_view, std::string_view> kinds[] = {
      {"nodes", "Node"},
      {"pods", "Pod"},
      {"poddisruptionbudgets.policy", "PodDisruptionBudget"},
      {"priorityclasses.scheduling.k8s.io", "PriorityClass"},
      {"namespaces", "Namespace"},
      {"podgroups.scheduling.k8s.io", "PodGroup"},
      {"compositepodgroups.scheduling.k8s.io", "CompositePodGroup"},
      {"runtimeclasses.node.k8s.io", "RuntimeClass"},
      {"limitranges", "LimitRange"},
      {"persistentvolumeclaims", "PersistentVolumeClaim"},
      {"persistentvolumes", "PersistentVolume"},
      {"storageclasses.storage.k8s.io", "StorageClass"},
      {"csinodes.storage.k8s.io", "CSINode"},
      {"csidrivers.storage.k8s.io", "CSIDriver"},
      {"volumeattachments.storage.k8s.io", "VolumeAttachment"},
      {"csistoragecapacities.storage.k8s.io", "CSIStorageCapacity"},
      {"resourceclaims.resource.k8s.io", "ResourceClaim"},
      {"resourceclaimtemplates.resource.k8s.io", "ResourceClaimTemplate"},
      {"resourceslices.resource.k8s.io", "ResourceSlice"},
      {"deviceclasses.resource.k8s.io", "DeviceClass"},
      {"devicetaintrules.resource.k8s.io", "DeviceTaintRule"}};
  for (const auto& [r, k] : kinds)
    if (r == resource) return k;
  return {};
}

std::string kubectl_error_line(std::string_view standard_error) {
  std::vector<std::string_view> lines;
  while (!standard_error.empty()) {
    const std::size_t end = std::min(standard_error.find('\n'), standard_error.size());
    std::string_view line = standard_error.substr(0, end);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (!line.empty()) lines.push_back(line);
    standard_error.remove_prefix(std::min(end + 1, standard_error.size()));
  }
  for (std::string_view l : lines)
    if (is_kubectl_message(l) && l.substr(0, 9) != "Warning: " && !is_klog_line(l))
      return std::string(l);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (it->substr(0, 9) != "Warning: " && !is_klog_line(*it)) return std::string(*it);
  return lines.empty() ? std::string() : std::string(lines.back());
}

std::optional<load_error> read_cluster_through_kubectl(const kubectl_options& options,
                                                       std::uint64_t max_size, loader& load,
                                                       cluster_dump& dump,
                                                       std::vector<std::string>& warnings) {
  // The types the cluster serves, of those the tool reads.
  std::set<std::string, std::less<>> listed;
  bool discovered_all = true;
  {
    kubectl_run k(with_flags({"api-resources", "-o", "name"}, options));
    std::string names;
    if (auto e = capture(k, names)) return e;
    const bool ok = k.finish();
    std::string_view rest = names;
    while (!rest.empty()) {
      const std::size_t end = std::min(rest.find('\n'), rest.size());
      std::string_view name = rest.substr(0, end);
      while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.remove_suffix(1);
      if (!name.empty()) listed.emplace(name);
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    if (!listed.contains("nodes") || !listed.contains("pods"))
      return load_error{ok ? "`" + k.command() + "` does not list nodes and pods" : k.failure()};
    // Discovery that failed for some API groups still lists the others (and says so).
    if (!ok) warnings.push_back(k.failure() + "; the resource types it listed were read");
    discovered_all = ok;
  }
  std::vector<std::string> served, not_served;
  for (const std::string& r : kubectl_resources())
    (listed.contains(r) ? served : not_served).push_back(r);
  // Every served type is read whole (-A): none of its objects is missing from the dump; a type
  // not served (discovery complete) has no objects.
  for (const std::string& r : served) dump.complete_kinds.emplace(kind_of_resource(r));
  if (discovered_all)
    for (const std::string& r : not_served) dump.complete_kinds.emplace(kind_of_resource(r));
  if (!not_served.empty() && discovered_all)
    warnings.push_back("the cluster does not serve " + join(not_served, ", ") +
                       " (kubectl api-resources): it holds none of them");
  else if (!not_served.empty())
    // Discovery failed for some groups: these may be served and hold objects kube-scheduler
    // reads, so every decision is refused rather than taken without them.
    dump.input_refusals.push_back("the resource types " + join(not_served, ", ") +
                                  " were not listed by a failed `kubectl api-resources` and were "
                                  "not read");

  // Every served type in one `kubectl get`, streamed into the loader.
  kubectl_run k(with_flags({"get", join(served, ","), "-A", "-o", "json"}, options));
  if (auto e = k.start()) return e;
  std::optional<load_error> read_error;
  {
    open_input in;
    read_error = open_descriptor(k.output(), "kubectl get -A -o json", max_size,
                                 load.stream_window_size(), in);
    if (!read_error) read_error = load.add_cluster(in, dump, max_size);
  }                  // its copy of the pipe closed
  k.close_output();  // a kubectl still writing (an error, the size limit) gets SIGPIPE
  const bool ok = k.finish();
  if (!ok && !(read_error && k.killed_by_sigpipe())) return load_error{k.failure()};
  return read_error;
}

std::optional<load_error> kubectl_namespace(const kubectl_options& options, std::string& ns) {
  kubectl_options o = options;
  o.ns.clear();
  kubectl_run k(with_flags({"config", "view", "--minify", "-o", "jsonpath={..namespace}"}, o));
  std::string out;
  if (auto e = capture(k, out)) return e;
  if (!k.finish()) return load_error{k.failure()};
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' '))
    out.pop_back();
  ns = out.empty() ? "default" : out;
  return std::nullopt;
}

bool invoked_as_kubectl_plugin(std::string_view argv0) {
  constexpr std::string_view name = "kubectl-preempt_whatif";
  const std::size_t slash = argv0.find_last_of('/');
  const std::string_view base = slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1);
  return base == name;
}

}  // namespace whatif
