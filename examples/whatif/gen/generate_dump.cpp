// preempt-whatif-gen - writes a synthetic `kubectl get nodes,pods,pdb,priorityclasses -A -o json`
// dump and a preemptor pod, for scale tests and benchmarks of preempt-whatif.
//
//   preempt-whatif-gen --out cluster.json --pod-out pod.json [--nodes 5000] [--pods-per-node 30]
//                      [--seed 1] [--style compact|kubectl] [--pending-cpu 2000]
//
// The dump is a `List` in kubectl's shape: nodes, then pods, then PodDisruptionBudgets, then
// PriorityClasses, with the fields a real dump carries (owner references, container statuses,
// conditions, default tolerations, projected service-account volumes, ...) so that parse times
// are representative: about 3 KB per pod, 474 MB for 5000 nodes and 150,000 pods. `--style
// kubectl` writes what `kubectl get -o json` prints for the same objects: indented by four spaces,
// with the metadata.managedFields the API server keeps (field sets keyed by escaped JSON), about
// 14 KB per pod, 2.1 GB for 5000 nodes and 150,000 pods.
// Every node is nearly full, so the preemptor (6 CPUs, 12 GiB, class "critical") fits nowhere
// and the decision needs preemption. A few nodes are tainted or cordoned, 40 pods are pending (2
// CPUs each, or --pending-cpu; half of them nominated to a node), and budgets cover some
// deployments.
// The output depends only on the arguments (a fixed pseudo-random generator).
//
// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

struct rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

// Writes JSON text to a file, compact as it is given or indented as `kubectl get -o json`
// writes it (Go's json.MarshalIndent with four spaces: one value per line, `"key": value`, empty
// objects and arrays kept as `{}` and `[]`). The compact text may be given in pieces that cut
// strings anywhere; whitespace outside strings is dropped when indenting.
class writer {
 public:
  writer(std::FILE* f, bool indent) : file_(f), indent_(indent) { buf_.reserve(1 << 20); }
  ~writer() { flush(); }
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  writer& operator<<(std::string_view s) {
    if (indent_)
      for (char c : s) put(c);
    else
      buf_ += s;
    if (buf_.size() > (1u << 20)) flush();
    return *this;
  }
  writer& operator<<(std::uint64_t v) { return *this << std::string_view(std::to_string(v)); }
  writer& operator<<(std::int64_t v) { return *this << std::string_view(std::to_string(v)); }
  writer& operator<<(int v) { return *this << std::string_view(std::to_string(v)); }
  writer& operator<<(char c) { return *this << std::string_view(&c, 1); }
  void flush() {
    if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), file_);
    buf_.clear();
  }

 private:
  void newline() {
    buf_ += '\n';
    buf_.append(depth_ * 4, ' ');
  }
  void put(char c) {
    if (in_string_) {
      buf_ += c;
      if (escaped_)
        escaped_ = false;
      else if (c == '\\')
        escaped_ = true;
      else if (c == '"')
        in_string_ = false;
      return;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') return;
    if (c == '}' || c == ']') {
      --depth_;
      if (!open_) newline();
      open_ = false;
      buf_ += c;
      return;
    }
    if (open_) newline();
    open_ = false;
    if (c == ',') {
      buf_ += c;
      newline();
    } else if (c == ':') {
      buf_ += ": ";
    } else {
      buf_ += c;
      if (c == '{' || c == '[') {
        ++depth_;
        open_ = true;
      } else if (c == '"') {
        in_string_ = true;
      }
    }
  }

  std::FILE* file_;
  bool indent_;
  std::string buf_;
  std::size_t depth_ = 0;
  bool open_ = false;  // after '{' or '[': the next character decides between "{}" and a newline
  bool in_string_ = false, escaped_ = false;
};

std::string hex(rng& r, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(n, '0');
  for (char& c : s) c = digits[r.below(16)];
  return s;
}

std::string uid(rng& r) {
  return hex(r, 8) + "-" + hex(r, 4) + "-" + hex(r, 4) + "-" + hex(r, 4) + "-" + hex(r, 12);
}

std::string node_name(std::uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "node-%05" PRIu64, i);
  return buf;
}

// RFC 3339 at second resolution, `s` seconds after 2024-05-01T00:00:00Z (within May 2024).
std::string timestamp(std::uint64_t s) {
  char buf[32];
  const std::uint64_t day = s / 86400 % 31, rest = s % 86400;
  std::snprintf(buf, sizeof buf, "2024-05-%02" PRIu64 "T%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 "Z",
                day + 1, rest / 3600, rest / 60 % 60, rest % 60);
  return buf;
}

struct options {
  std::uint64_t nodes = 5000;
  std::uint64_t pods_per_node = 30;
  std::uint64_t seed = 1;
  const char* out = nullptr;
  const char* pod_out = nullptr;
  bool kubectl = false;  // indented, with metadata.managedFields, as `kubectl get -o json` writes
  std::uint64_t pending_cpu = 2000;  // millicores each pending pod requests
};

struct priority_level {
  const char* class_name;  // "" = none
  int priority;
};
constexpr priority_level levels[] = {
    {"", 0}, {"batch-low", 100}, {"standard", 1000}, {"standard", 1000}, {"production", 10000}};

// metadata.managedFields of a node (kubelet's status updates, the node controller's podCIDR),
// as the API server returns them: field sets whose keys hold escaped JSON.
void write_node_managed_fields(writer& w) {
  w << R"(,"managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2024-04-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:volumes.kubernetes.io/controller-managed-attach-detach":{}},"f:labels":{".":{},"f:beta.kubernetes.io/arch":{},"f:beta.kubernetes.io/os":{},"f:kubernetes.io/arch":{},"f:kubernetes.io/hostname":{},"f:kubernetes.io/os":{},"f:node.kubernetes.io/instance-type":{},"f:topology.kubernetes.io/region":{},"f:topology.kubernetes.io/zone":{}}},"f:spec":{"f:providerID":{}}}},)"
    << R"({"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2024-04-01T00:01:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:node.alpha.kubernetes.io/ttl":{}}},"f:spec":{"f:podCIDR":{},"f:podCIDRs":{".":{},"v:\"10.0.0.0/24\"":{}}}}},)"
    << R"({"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2024-05-20T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:allocatable":{"f:ephemeral-storage":{},"f:memory":{}},"f:conditions":{"k:{\"type\":\"DiskPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"MemoryPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"PIDPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"Ready\"}":{"f:lastHeartbeatTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{}}},"f:images":{},"f:nodeInfo":{"f:bootID":{},"f:containerRuntimeVersion":{},"f:kernelVersion":{},"f:kubeProxyVersion":{},"f:kubeletVersion":{},"f:machineID":{},"f:osImage":{},"f:systemUUID":{}}}},"subresource":"status"}])";
}

// metadata.managedFields of a pod: the ReplicaSet controller's create, the scheduler's binding
// condition and the kubelet's status, with the owner's uid in an escaped key.
void write_pod_managed_fields(writer& w, const std::string& owner_uid, bool placed) {
  w << R"(,"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2024-04-30T12:00:01Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{}},"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{},"f:tier":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\")"
    << owner_uid
    << R"(\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"LOG_LEVEL\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:priorityClassName":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:tolerations":{}}}})";
  if (placed)
    w << R"(,{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2024-04-30T12:00:09Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.244.0.1\"}":{".":{},"f:ip":{}}},"f:startTime":{}}},"subresource":"status"})";
  w << "]";
}

void write_node(writer& w, rng& r, std::uint64_t i, bool kubectl) {
  const std::string name = node_name(i);
  const std::uint64_t zone = i % 3;
  w << R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" << name << R"(","uid":")"
    << std::string_view(uid(r)) << R"(","resourceVersion":")" << (1000000 + i)
    << R"(","creationTimestamp":"2024-04-01T00:00:00Z","labels":{"beta.kubernetes.io/arch":"amd64","beta.kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","kubernetes.io/hostname":")"
    << name
    << R"(","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"m5.4xlarge","topology.kubernetes.io/region":"eu-west-1","topology.kubernetes.io/zone":"eu-west-1)"
    << std::string_view(zone == 0   ? "a"
                        : zone == 1 ? "b"
                                    : "c")
    << R"("},"annotations":{"node.alpha.kubernetes.io/ttl":"0","volumes.kubernetes.io/controller-managed-attach-detach":"true"})";
  if (kubectl) write_node_managed_fields(w);
  w << R"(},"spec":{"podCIDR":"10.)" << (i / 256 % 256) << "." << (i % 256)
    << R"(.0/24","providerID":"aws:///eu-west-1a/i-)" << std::string_view(hex(r, 17)) << '"';
  // A dedicated node and a cordoned one carry a taint each; a node both has one list of two.
  const bool dedicated = i % 97 == 5, cordoned = i % 211 == 7;
  if (cordoned) w << R"(,"unschedulable":true)";
  if (dedicated || cordoned) w << R"(,"taints":[)";
  if (dedicated) w << R"({"key":"dedicated","value":"gpu","effect":"NoSchedule"})";
  if (dedicated && cordoned) w << ",";
  if (cordoned)
    w << R"({"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule","timeAdded":"2024-05-02T00:00:00Z"})";
  if (dedicated || cordoned) w << "]";
  w << R"(},"status":{"capacity":{"cpu":"16","ephemeral-storage":"104845292Ki","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"65023132Ki","pods":"110"},"allocatable":{"cpu":"15890m","ephemeral-storage":"96625420948","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"63872156Ki","pods":"110"},"conditions":[)";
  const char* conds[][4] = {
      {"MemoryPressure", "False", "KubeletHasSufficientMemory",
       "kubelet has sufficient memory available"},
      {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
      {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
      {"Ready", "True", "KubeletReady", "kubelet is posting ready status"}};
  for (std::size_t c = 0; c < 4; ++c) {
    if (c) w << ",";
    w << R"({"type":")" << conds[c][0] << R"(","status":")" << conds[c][1]
      << R"(","lastHeartbeatTime":"2024-05-20T10:00:00Z","lastTransitionTime":"2024-04-01T00:01:00Z","reason":")"
      << conds[c][2] << R"(","message":")" << conds[c][3] << R"("})";
  }
  w << R"(],"addresses":[{"type":"InternalIP","address":"10.0.)" << (i / 256 % 256) << "."
    << (i % 256) << R"("},{"type":"Hostname","address":")" << name
    << R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{"machineID":")"
    << std::string_view(hex(r, 32)) << R"(","systemUUID":")" << std::string_view(uid(r))
    << R"(","bootID":")" << std::string_view(uid(r))
    << R"j(","kernelVersion":"6.1.0-18-cloud-amd64","osImage":"Debian GNU/Linux 12 (bookworm)","containerRuntimeVersion":"containerd://1.6.20","kubeletVersion":"v1.30.2","kubeProxyVersion":"v1.30.2","operatingSystem":"linux","architecture":"amd64"}}})j";
}

// Writes one pod. `node` is empty for a pending pod.
void write_pod(writer& w, rng& r, std::uint64_t app, std::uint64_t serial, const std::string& node,
               std::uint64_t cpu_m, std::uint64_t mem_mi, const priority_level& level,
               const std::string& nominated, bool kubectl) {
  const std::string ns = "team-" + std::to_string(app % 40);
  const std::string deploy = "app-" + std::to_string(app);
  const std::string hash = hex(r, 10);
  const std::string name = deploy + "-" + hash + "-" + hex(r, 5);
  const std::string vol = "kube-api-access-" + hex(r, 5);
  const std::uint64_t started = r.below(86400 * 19);
  const std::string pod_uid = uid(r);
  const std::string owner_uid = uid(r);
  w << R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" << name << R"(","generateName":")"
    << deploy << "-" << hash << R"(-","namespace":")" << ns << R"(","uid":")" << pod_uid
    << R"(","resourceVersion":")" << (2000000 + serial) << R"(","creationTimestamp":")"
    << std::string_view(timestamp(started)) << R"(","labels":{"app":")" << deploy
    << R"(","pod-template-hash":")" << hash << R"(","tier":")"
    << std::string_view(app % 2 ? "backend" : "frontend")
    << R"("},"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-04-30T12:00:00Z"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")"
    << deploy << "-" << hash << R"(","uid":")" << owner_uid
    << R"(","controller":true,"blockOwnerDeletion":true}])";
  if (kubectl) write_pod_managed_fields(w, owner_uid, !node.empty());
  w << R"(},"spec":{"volumes":[{"name":")" << vol
    << R"(","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}],"defaultMode":420}}],"containers":[{"name":"app","image":"registry.example.com/)"
    << ns << "/" << deploy
    << R"(:1.4.2","ports":[{"containerPort":8080,"protocol":"TCP"}],"env":[{"name":"LOG_LEVEL","value":"info"}],"resources":{"limits":{"memory":")"
    << mem_mi << R"(Mi"},"requests":{"cpu":")" << cpu_m << R"(m","memory":")" << mem_mi
    << R"(Mi"}},"volumeMounts":[{"name":")" << vol
    << R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default",)";
  if (!node.empty()) w << R"("nodeName":")" << node << R"(",)";
  w << R"("securityContext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],)";
  if (*level.class_name) w << R"("priorityClassName":")" << level.class_name << R"(",)";
  w << R"("priority":)" << level.priority
    << R"(,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{)";
  if (node.empty()) {
    w << R"("phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","lastProbeTime":null,"lastTransitionTime":"2024-05-20T09:59:00Z","reason":"Unschedulable","message":"0/5000 nodes are available: 5000 Insufficient cpu."}],)";
    if (!nominated.empty()) w << R"("nominatedNodeName":")" << nominated << R"(",)";
    w << R"("qosClass":"Burstable"}})";
    return;
  }
  const std::string ts = timestamp(started + 3);
  w << R"("phase":"Running","conditions":[)";
  const char* conds[] = {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                         "PodScheduled"};
  for (std::size_t c = 0; c < 5; ++c) {
    if (c) w << ",";
    w << R"({"type":")" << conds[c]
      << R"(","status":"True","lastProbeTime":null,"lastTransitionTime":")" << ts << R"("})";
  }
  w << R"(],"hostIP":"10.0.1.1","hostIPs":[{"ip":"10.0.1.1"}],"podIP":"10.244.)"
    << (serial / 256 % 256) << "." << (serial % 256) << R"(","podIPs":[{"ip":"10.244.)"
    << (serial / 256 % 256) << "." << (serial % 256) << R"("}],"startTime":")" << ts
    << R"(","containerStatuses":[{"name":"app","state":{"running":{"startedAt":")" << ts
    << R"("}},"lastState":{},"ready":true,"restartCount":0,"image":"registry.example.com/)" << ns
    << "/" << deploy << R"(:1.4.2","imageID":"registry.example.com/)" << ns << "/" << deploy
    << R"(@sha256:)" << std::string_view(hex(r, 64)) << R"(","containerID":"containerd://)"
    << std::string_view(hex(r, 64)) << R"(","started":true}],"qosClass":"Burstable"}})";
}

int usage() {
  std::fputs(
      "usage: preempt-whatif-gen --out FILE --pod-out FILE [--nodes N] [--pods-per-node M] "
      "[--seed S] [--style compact|kubectl] [--pending-cpu MILLICORES]\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) return usage();
    const char* v = argv[++i];
    if (a == "--out")
      o.out = v;
    else if (a == "--pod-out")
      o.pod_out = v;
    else if (a == "--nodes")
      o.nodes = std::strtoull(v, nullptr, 10);
    else if (a == "--pods-per-node")
      o.pods_per_node = std::strtoull(v, nullptr, 10);
    else if (a == "--style" && std::string_view(v) == "kubectl")
      o.kubectl = true;
    else if (a == "--style" && std::string_view(v) == "compact")
      o.kubectl = false;
    else if (a == "--seed")
      o.seed = std::strtoull(v, nullptr, 10);
    else if (a == "--pending-cpu")
      o.pending_cpu = std::strtoull(v, nullptr, 10);
    else
      return usage();
  }
  if (o.out == nullptr || o.pod_out == nullptr || o.nodes == 0) return usage();

  std::FILE* f = std::fopen(o.out, "wb");
  if (f == nullptr) {
    std::perror(o.out);
    return 1;
  }
  rng r{o.seed};
  {
    writer w(f, o.kubectl);
    // kubectl writes a List's members in key order: its kind comes after the items.
    w << (o.kubectl ? R"({"apiVersion":"v1","items":[)"
                    : R"({"apiVersion":"v1","kind":"List","items":[)");
    for (std::uint64_t i = 0; i < o.nodes; ++i) {
      if (i) w << ",\n";
      write_node(w, r, i, o.kubectl);
    }
    // Pods: per node, fill about 14.5 of the 15.89 allocatable CPUs and ~55 of 61 GiB.
    std::uint64_t serial = 0;
    const std::uint64_t apps = o.nodes * o.pods_per_node / 10 + 1;
    for (std::uint64_t n = 0; n < o.nodes; ++n) {
      const std::string name = node_name(n);
      const std::uint64_t budget_m = 14500, budget_mi = 56000;
      for (std::uint64_t p = 0; p < o.pods_per_node; ++p) {
        const std::uint64_t share_m = std::max<std::uint64_t>(1, budget_m / o.pods_per_node);
        const std::uint64_t share_mi = std::max<std::uint64_t>(1, budget_mi / o.pods_per_node);
        const std::uint64_t cpu = share_m / 2 + r.below(share_m);
        const std::uint64_t mem = share_mi / 2 + r.below(share_mi);
        const priority_level& level = levels[r.below(std::size(levels))];
        w << ",\n";
        write_pod(w, r, r.below(apps), serial++, name, cpu, mem, level, "", o.kubectl);
      }
    }
    // Pending pods: some nominated to a node by an earlier preemption.
    for (std::uint64_t p = 0; p < 40; ++p) {
      const std::string nominated = p % 2 ? node_name(r.below(o.nodes)) : std::string();
      w << ",\n";
      write_pod(w, r, r.below(apps), serial++, "", o.pending_cpu, 4096, levels[1 + p % 4],
                nominated, o.kubectl);
    }
    // Budgets over some deployments (their pods carry app=<deployment>).
    for (std::uint64_t b = 0; b < apps; b += 7) {
      const std::string ns = "team-" + std::to_string(b % 40);
      w << ",\n"
        << R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"app-)" << b
        << R"(-pdb","namespace":")" << ns << R"(","uid":")" << std::string_view(uid(r))
        << R"("},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"app-)" << b
        << R"("}}},"status":{"observedGeneration":1,"disruptionsAllowed":)" << (b % 3)
        << R"(,"currentHealthy":3,"desiredHealthy":1,"expectedPods":3}})";
    }
    const char* classes[][3] = {{"batch-low", "100", "false"},
                                {"standard", "1000", "true"},
                                {"production", "10000", "false"},
                                {"critical", "100000", "false"}};
    for (const auto& c : classes) {
      w << ",\n"
        << R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":")"
        << c[0] << R"("},"value":)" << c[1] << R"(,"globalDefault":)" << c[2]
        << R"(,"preemptionPolicy":"PreemptLowerPriority","description":"synthetic"})";
    }
    w << "\n]" << (o.kubectl ? R"(,"kind":"List")" : "")
      << ",\"metadata\":{\"resourceVersion\":\"\"}}\n";
  }
  std::fclose(f);

  std::FILE* pf = std::fopen(o.pod_out, "wb");
  if (pf == nullptr) {
    std::perror(o.pod_out);
    return 1;
  }
  std::fputs(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"ingest-0","namespace":"team-1"},
 "spec":{"priorityClassName":"critical","containers":[{"name":"ingest","image":"ingest:2",
 "resources":{"requests":{"cpu":"6","memory":"12Gi"}}}]}}
)",
             pf);
  std::fclose(pf);
  return 0;
}
