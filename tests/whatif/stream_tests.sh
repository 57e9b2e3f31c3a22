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

# A stand-in kubectl: prints the dump for the plugin's command line; FAKE_KUBECTL_FAIL makes it
# fail as an expired login does.
fake_bin="$work/bin"
mkdir -p "$fake_bin"
cat >"$fake_bin/kubectl" <<'EOF'
#!/bin/sh
if [ "$*" != "get nodes,pods,pdb,priorityclasses -A -o json" ]; then
  echo "stand-in kubectl: unexpected arguments: $*" >&2
  exit 3
fi
if [ -n "${FAKE_KUBECTL_FAIL:-}" ]; then
  echo "error: You must be logged in to the server (Unauthorized)" >&2
  echo "a second line that the message leaves out" >&2
  exit 1
fi
cat "$FAKE_KUBECTL_DUMP"
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
    expect_error '`kubectl get nodes,pods,pdb,priorityclasses -A -o json` failed (exit status 1): error: You must be logged in to the server (Unauthorized)' \
      env FAKE_KUBECTL_FAIL=1 PATH="$fake_bin:$PATH" "$plugin" --pod-name team/waiting ;;
  plugin-without-kubectl)
    mkdir -p "$work/empty"
    expect_error "cannot run kubectl: No such file or directory" \
      env PATH="$work/empty" "$plugin" --pod-name team/waiting ;;
  *)
    fail "unknown case" ;;
esac
echo "ok: $case_name"
