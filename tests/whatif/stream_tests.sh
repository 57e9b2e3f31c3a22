#!/usr/bin/env bash
# preempt-whatif on streams and as a kubectl plugin: what a scenario folder cannot express.
#
#   stream_tests.sh TOOL SCENARIOS WORK CASE
#
# TOOL is the built preempt-whatif (its kubectl-preempt_whatif link sits next to it), SCENARIOS
# the scenarios folder (the inputs come from scenarios/pod-name), WORK a scratch folder. Each
# CASE reads the same dump another way and must give the answer reading the file gives, or the
# error it names; a stand-in `kubectl` on PATH plays the cluster for the plugin cases.
#
# SPDX-License-Identifier: Apache-2.0
set -euo pipefail

tool=$1
scenarios=$2
work=$3
case_name=$4
plugin="$(dirname "$tool")/kubectl-preempt_whatif"
data="$scenarios/pod-name"
mkdir -p "$work"
work=$(cd "$work" && pwd)

fail() {
  echo "FAIL ($case_name): $*" >&2
  exit 1
}

# The reference: the dump read from its file.
expected=$("$tool" --cluster "$data/cluster.json" --pod-name team/waiting -o json)
expect_same() {
  [[ "$1" == "$expected" ]] || fail "output differs from reading the file:"$'\n'"$1"
}
# Runs "$@", which must fail with exit status 2 and a message containing $want.
expect_error() {
  local want=$1
  shift
  local status=0 err
  err=$("$@" 2>&1 >/dev/null) || status=$?
  [[ $status -eq 2 ]] || fail "exit status $status, expected 2 ($err)"
  [[ "$err" == *"$want"* ]] || fail "message \"$err\" does not say \"$want\""
  [[ $(printf '%s' "$err" | wc -l) -eq 0 ]] || fail "message is not one line: $err"
}

# A stand-in kubectl. `api-resources -o name` lists what the tool reads and a few more, less
# FAKE_KUBECTL_UNSERVED; `get LIST -A -o json` prints FAKE_KUBECTL_DUMP once LIST is every listed
# type the tool reads; `config view --minify ...` prints FAKE_KUBECTL_NAMESPACE. Every command
# line goes to FAKE_KUBECTL_LOG; FAKE_KUBECTL_FAIL makes api-resources fail as an expired login
# does, FAKE_KUBECTL_GET_FAIL makes get fail after warnings and klog lines.
fake_bin="$work/bin"
mkdir -p "$fake_bin"
cat >"$fake_bin/kubectl" <<'EOF'
#!/usr/bin/env bash
echo "$*" >>"${FAKE_KUBECTL_LOG:-/dev/null}"
all="nodes pods poddisruptionbudgets.policy priorityclasses.scheduling.k8s.io namespaces
podgroups.scheduling.k8s.io compositepodgroups.scheduling.k8s.io runtimeclasses.node.k8s.io
limitranges persistentvolumeclaims persistentvolumes storageclasses.storage.k8s.io csinodes.storage.k8s.io
csidrivers.storage.k8s.io volumeattachments.storage.k8s.io csistoragecapacities.storage.k8s.io
resourceclaims.resource.k8s.io resourceclaimtemplates.resource.k8s.io
resourceslices.resource.k8s.io deviceclasses.resource.k8s.io devicetaintrules.resource.k8s.io"
served=()
for r in $all; do
  [[ " ${FAKE_KUBECTL_UNSERVED:-} " == *" $r "* ]] || served+=("$r")
done
case "$1 $2 $3" in
  "api-resources -o name")
    if [ -n "${FAKE_KUBECTL_FAIL:-}" ]; then
      echo "error: You must be logged in to the server (Unauthorized)" >&2
      echo "a second line that the message leaves out" >&2
      exit 1
    fi
    printf '%s\n' bindings configmaps "${served[@]}" deployments.apps ;;
  "config view --minify")
    echo "${FAKE_KUBECTL_NAMESPACE:-}" ;;
  get*)
    want=$(IFS=,; echo "${served[*]}")
    if [ "$2" != "$want" ] || [ "$3 $4 $5" != "-A -o json" ]; then
      echo "stand-in kubectl: unexpected arguments: $*" >&2
      exit 3
    fi
    if [ -n "${FAKE_KUBECTL_GET_FAIL:-}" ]; then
      echo "Warning: policy/v1beta1 PodDisruptionBudget is deprecated" >&2
      echo "E0520 10:00:00.123456   12345 memcache.go:265] couldn't get current server API group list" >&2
      echo "The connection to the server localhost:8080 was refused - did you specify the right host or port?" >&2
      exit 1
    fi
    cat "$FAKE_KUBECTL_DUMP" ;;
  *)
    echo "stand-in kubectl: unexpected arguments: $*" >&2
    exit 3 ;;
esac
EOF
chmod +x "$fake_bin/kubectl"
export FAKE_KUBECTL_DUMP="$data/cluster.json"

case $case_name in
  pipe)
    expect_same "$(cat "$data/cluster.json" | "$tool" --cluster - --pod-name team/waiting -o json)" ;;
  dev-stdin)
    expect_same "$(cat "$data/cluster.json" | "$tool" --cluster /dev/stdin --pod-name team/waiting -o json)" ;;
  process-substitution)
    expect_same "$("$tool" --cluster <(cat "$data/cluster.json") --pod-name team/waiting -o json)" ;;
  named-pipe)
    rm -f "$work/fifo"
    mkfifo "$work/fifo"
    cat "$data/cluster.json" >"$work/fifo" &
    expect_same "$("$tool" --cluster "$work/fifo" --pod-name team/waiting -o json)"
    wait ;;
  stdin-part-read)
    # Standard input redirected from a file that a first reader already read a line of: the tool
    # reads from where that reader stopped, not from the file's start.
    { printf 'a first line for another reader\n'; cat "$data/cluster.json"; } >"$work/prefixed.json"
    expect_same "$({ head -n 1 >/dev/null; "$tool" --cluster - --pod-name team/waiting -o json; } <"$work/prefixed.json")" ;;
  stream-over-size)
    expect_error "<stdin>: holds more than 100 bytes, more than the input size limit of 100 bytes" \
      bash -c 'cat "$1" | "$2" --cluster - --pod-name team/waiting --max-input-size 100' _ \
      "$data/cluster.json" "$tool" ;;
  gzip-stream)
    # A compressed stream is named from its first bytes.
    expect_error "<stdin>: is gzip-compressed data, not text" \
      bash -c 'gzip -c "$1" | "$2" --cluster - --pod-name team/waiting' _ "$data/cluster.json" "$tool" ;;
  binary-named-at-once)
    # A 3 GiB file that starts as gzip does (sparse: it takes no disk) is named at once, not read
    # whole: with 1 GiB of address space, reading it would fail otherwise.
    printf '\x1f\x8b' >"$work/big.gz"
    truncate -s 3G "$work/big.gz"
    expect_error "big.gz: is gzip-compressed data, not text" \
      bash -c 'ulimit -v 1048576; "$1" --cluster "$2" --all-pending --max-input-size 8G' _ "$tool" "$work/big.gz"
    expect_error "big.gz: is gzip-compressed data, not text" \
      bash -c 'ulimit -v 1048576; "$1" --cluster "$2" --pod "$3" --max-input-size 8G' _ "$tool" \
      "$data/cluster.json" "$work/big.gz"
    rm -f "$work/big.gz" ;;
  plugin-reads-kubectl)
    expect_same "$(PATH="$fake_bin:$PATH" "$plugin" --pod-name team/waiting -o json)" ;;
  plugin-all-pending)
    out=$(PATH="$fake_bin:$PATH" "$plugin" --all-pending)
    [[ "$out" == *"(the current kubectl context)"* && "$out" == *"team/waiting"*"nominated"*"node1"* ]] ||
      fail "unexpected table: $out" ;;
  plugin-with-cluster)
    # --cluster wins: kubectl is not run (the stand-in would fail).
    expect_same "$(FAKE_KUBECTL_FAIL=1 PATH="$fake_bin:$PATH" "$plugin" --cluster "$data/cluster.json" \
      --pod-name team/waiting -o json)" ;;
  plugin-kubectl-fails)
    expect_error '`kubectl api-resources -o name` failed (exit status 1): error: You must be logged in to the server (Unauthorized)' \
      env FAKE_KUBECTL_FAIL=1 PATH="$fake_bin:$PATH" "$plugin" --pod-name team/waiting ;;
  plugin-error-after-warnings)
    # kubectl's warnings and client-go's klog lines come before its error: the error is shown.
    expect_error '-A -o json` failed (exit status 1): The connection to the server localhost:8080 was refused - did you specify the right host or port?' \
      env FAKE_KUBECTL_GET_FAIL=1 PATH="$fake_bin:$PATH" "$plugin" --pod-name team/waiting ;;
  plugin-fetches-every-kind)
    # One `kubectl get` of every type the tool reads that the cluster serves (the stand-in
    # checks the list), after `kubectl api-resources`.
    log="$work/kubectl.log"
    rm -f "$log"
    expect_same "$(FAKE_KUBECTL_LOG="$log" PATH="$fake_bin:$PATH" "$plugin" --pod-name team/waiting -o json)"
    [[ "$(cat "$log")" == "api-resources -o name"$'\n'"get nodes,pods,poddisruptionbudgets.policy,"*",devicetaintrules.resource.k8s.io -A -o json" ]] ||
      fail "kubectl was run as: $(cat "$log")" ;;
  plugin-unserved-kinds)
    # A cluster without the pod-group and DRA APIs: the rest is fetched, the others are named.
    unserved="podgroups.scheduling.k8s.io compositepodgroups.scheduling.k8s.io resourceclaims.resource.k8s.io resourceclaimtemplates.resource.k8s.io resourceslices.resource.k8s.io deviceclasses.resource.k8s.io devicetaintrules.resource.k8s.io"
    out=$(FAKE_KUBECTL_UNSERVED="$unserved" PATH="$fake_bin:$PATH" "$plugin" --pod-name team/waiting -o json)
    [[ "$out" == *'"the cluster does not serve podgroups.scheduling.k8s.io, compositepodgroups.scheduling.k8s.io, resourceclaims.resource.k8s.io, resourceclaimtemplates.resource.k8s.io, resourceslices.resource.k8s.io, deviceclasses.resource.k8s.io, devicetaintrules.resource.k8s.io (kubectl api-resources): it holds none of them"'* ]] ||
      fail "the types not served are not named: $out"
    [[ "$out" == *'"nominatedNodeName": "node1"'* ]] || fail "unexpected decision: $out" ;;
  plugin-pass-through)
    # --context, --kubeconfig, -n and --request-timeout reach every kubectl command; -n names
    # the namespace of --pod-name NAME.
    log="$work/kubectl.log"
    rm -f "$log"
    expect_same "$(FAKE_KUBECTL_LOG="$log" PATH="$fake_bin:$PATH" "$plugin" --context prod \
      --kubeconfig /etc/kube/config -n team --request-timeout 20s --pod-name waiting -o json)"
    flags="--context prod --kubeconfig /etc/kube/config --namespace team --request-timeout 20s"
    [[ "$(head -n 1 "$log")" == "api-resources -o name $flags" && "$(sed -n 2p "$log")" == "get "*" -A -o json $flags" ]] ||
      fail "kubectl was run as: $(cat "$log")" ;;
  plugin-context-namespace)
    # --pod-name NAME without -n: the current context's namespace, as kubectl has it.
    log="$work/kubectl.log"
    rm -f "$log"
    expect_same "$(FAKE_KUBECTL_LOG="$log" FAKE_KUBECTL_NAMESPACE=team PATH="$fake_bin:$PATH" \
      "$plugin" --context prod --pod-name waiting -o json)"
    grep -qx -- "config view --minify -o jsonpath={..namespace} --context prod" "$log" ||
      fail "kubectl was run as: $(cat "$log")" ;;
  plugin-namespace-conflict)
    expect_error "--pod-name other/waiting: its namespace is not the one -n/--namespace names (team)" \
      env PATH="$fake_bin:$PATH" "$plugin" -n team --pod-name other/waiting ;;
  readme-dump-command)
    # The `kubectl get` line of the READMEs fetches what the plugin fetches (the stand-in checks
    # the list), into a file that gives the same answer.
    root="$scenarios/../../.."
    line=$(grep -m1 '^kubectl get \$(kubectl api-resources' "$root/examples/whatif/README.md")
    [[ -n "$line" ]] || fail "no kubectl get line in examples/whatif/README.md"
    grep -qxF -- "$line" "$root/README.md" || fail "README.md's kubectl get line differs"
    (cd "$work" && PATH="$fake_bin:$PATH" bash -c "$line")
    expect_same "$("$tool" --cluster "$work/cluster.json" --pod-name team/waiting -o json)" ;;
  help-exit-statuses)
    # The exit statuses --help lists are main.cpp's, and examples/whatif/README.md lists the same.
    root="$scenarios/../../.."
    out=$("$tool" --help) || fail "--help: exit status $?"
    in_help=$(printf '%s\n' "$out" | sed -n '/^Exit status:/,$p' | grep -oE '^  [0-9]+  ' |
      tr -d ' ' | sort -n | paste -sd' ' || true)
    in_main=$(grep -oE 'constexpr int exit_[a-z_]+ = [0-9]+' "$root/examples/whatif/main.cpp" |
      grep -oE '[0-9]+$' | sort -n | paste -sd' ' || true)
    in_readme=$(grep -oE '^\* [0-9]+: ' "$root/examples/whatif/README.md" | grep -oE '[0-9]+' |
      sort -n | paste -sd' ' || true)
    [[ -n "$in_main" ]] || fail "no exit_* constants in main.cpp"
    [[ "$in_help" == "$in_main" ]] || fail "--help lists exit statuses \"$in_help\", main.cpp uses \"$in_main\""
    [[ "$in_readme" == "$in_main" ]] ||
      fail "README.md lists exit statuses \"$in_readme\", main.cpp uses \"$in_main\"" ;;
  kubectl-flags-without-kubectl)
    expect_error "--context: only for reading the cluster through kubectl" \
      "$tool" --cluster "$data/cluster.json" --context prod --pod-name team/waiting ;;
  plugin-streams)
    # A dump larger than the 16 MiB window streams through the pipe from kubectl, as a file does.
    gen="$(dirname "$tool")/preempt-whatif-gen"
    "$gen" --nodes 200 --pods-per-node 30 --out "$work/big.json" --pod-out "$work/big-pod.json"
    want=$("$tool" --cluster "$work/big.json" --pod "$work/big-pod.json" -o json)
    got=$(FAKE_KUBECTL_DUMP="$work/big.json" PATH="$fake_bin:$PATH" "$plugin" --pod "$work/big-pod.json" -o json --timings 2>"$work/timings")
    [[ "$got" == "$want" ]] || fail "the plugin's answer differs from the file's"
    grep -q "1 of 1 input read a window at a time" "$work/timings" || fail "not streamed: $(cat "$work/timings")"
    rm -f "$work/big.json" ;;
  plugin-without-kubectl)
    mkdir -p "$work/empty"
    expect_error "cannot run kubectl: No such file or directory" \
      env PATH="$work/empty" "$plugin" --pod-name team/waiting ;;
  *)
    fail "unknown case" ;;
esac
echo "ok: $case_name"
