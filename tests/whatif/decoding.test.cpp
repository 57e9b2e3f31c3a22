// Unit tests of preempt-whatif's input pieces that scenario folders cannot pin one by one: YAML
// scalars and keys as Kubernetes reads them (the expected JSON was checked against
// sigs.k8s.io/yaml v1.6.0's YAMLToJSON), merge keys, anchors and repeated keys, the YAML errors,
// message clipping, sizes, the JSON value scanner, the dynamic resource allocation kinds
// (dra_kinds.cpp), and the storage kinds' fields and defaults.
//
// SPDX-License-Identifier: Apache-2.0
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "decode/kinds.hpp"
#include "io/input.hpp"
#include "io/json_error.hpp"
#include "io/loader.hpp"
#include "io/yaml_json.hpp"
#include "output/one_line.hpp"

namespace {

// The documents yaml_to_json writes, each minified by simdjson (which must accept them).
std::vector<std::string> convert(std::string_view yaml) {
  whatif::text_buffer json;
  std::vector<whatif::json_document> docs;
  const auto error = whatif::yaml_to_json("t.yaml", yaml, json, docs);
  REQUIRE_MESSAGE(!error, (error ? error->message : ""));
  std::vector<std::string> out;
  simdjson::dom::parser parser;
  for (const auto& d : docs) {
    simdjson::dom::element root;
    REQUIRE(parser.parse(json.data() + d.begin, d.end - d.begin, false).get(root) ==
            simdjson::SUCCESS);
    out.push_back(simdjson::minify(root));
  }
  return out;
}

std::string one(std::string_view yaml) {
  const auto docs = convert(yaml);
  REQUIRE(docs.size() == 1);
  return docs.front();
}

std::string error_of(std::string_view yaml) {
  whatif::text_buffer json;
  std::vector<whatif::json_document> docs;
  const auto error = whatif::yaml_to_json("t.yaml", yaml, json, docs);
  REQUIRE(error);
  return error->message;
}

}  // namespace

TEST_CASE("YAML scalars resolve as go-yaml v2 resolves them") {
  CHECK(one("a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: True\n") ==
        R"({"a":true,"b":false,"c":true,"d":false,"e":true,"f":false,"g":true})");
  CHECK(one("a: ~\nb: null\nc:\nd: NULL\n") == R"({"a":null,"b":null,"c":null,"d":null})");
  CHECK(one("a: 0x1F\nb: 0o17\nc: 017\nd: 0b101\ne: -0b11\nf: 1_000\ng: +12\nh: -0\n") ==
        R"({"a":31,"b":15,"c":15,"d":5,"e":-3,"f":1000,"g":12,"h":0})");
  // Integral floats are written as Go writes them: 1000, not 1e3 (so they read as integers).
  CHECK(one("a: 1.5\nb: .5\nc: 1e3\nd: 08\ne: 0.0000001\nf: 1e21\n") ==
        R"({"a":1.5,"b":0.5,"c":1000,"d":8,"e":1e-07,"f":1e+21})");
  CHECK(one("a: 18446744073709551615\nb: -9223372036854775808\n") ==
        R"({"a":18446744073709551615,"b":-9223372036854775808})");
  // Quoted scalars, timestamps and anything else are strings.
  CHECK(
      one("a: \"yes\"\nb: '12'\nc: 2024-05-01T10:00:00Z\nd: 2024-05-01\ne: 1e400\nf: 0x\ng: "
          "500m\n") ==
      R"({"a":"yes","b":"12","c":"2024-05-01T10:00:00Z","d":"2024-05-01","e":"1e400","f":"0x","g":"500m"})");
  CHECK(one("a: !!str 123\nb: !!float 3\nc: !!binary aGVsbG8=\nd: !custom x\n") ==
        R"({"a":"123","b":3,"c":"hello","d":"x"})");
  CHECK(one("a: \"caf\\u00e9\\ttab\"\nb: |\n  two\n  lines\n") ==
        R"({"a":"café\ttab","b":"two\nlines\n"})");
}

TEST_CASE("YAML mapping keys become strings as sigs.k8s.io/yaml makes them") {
  CHECK(one("true: a\n1: b\n1.5: c\n0x10: d\non: e\ny: f\n1e6: g\n1234567: h\n") ==
        R"({"1":"b","1.5":"c","16":"d","true":"f","1e+06":"g","1234567":"h"})");
  CHECK(one("2024-01-01: x\n") == R"({"2024-01-01":"x"})");
  CHECK_MESSAGE(error_of("~: x\n").find("a null mapping key") != std::string::npos,
                error_of("~: x\n"));
  CHECK(error_of("? [a, b]\n: c\n")
            .find("line 1, column 3: a mapping or sequence as a mapping key") != std::string::npos);
}

TEST_CASE("YAML repeated keys: the last value wins whole") {
  CHECK(one("a: 1\nb: 2\na: 3\n") == R"({"b":2,"a":3})");
  CHECK(one("m: {p: 1}\nm: {q: 2}\n") == R"({"m":{"q":2}})");
  // Past the size from which a mapping keeps key hashes, too.
  std::string many;
  for (int i = 0; i < 40; ++i) many += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  many += "k7: last\n";
  const std::string json = one(many);
  CHECK(json.find(R"("k7":7)") == std::string::npos);
  CHECK(json.find(R"("k7":"last")") != std::string::npos);
}

TEST_CASE("YAML anchors, aliases and merge keys (explicit keys win, then earlier sources)") {
  CHECK(one("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n") ==
        R"({"base":{"x":1,"true":2},"other":{"x":1,"true":3}})");
  CHECK(one("b: &b {x: 1, z: 9}\nm:\n  z: 0\n  <<: [*b, {w: 4, x: 5}]\n") ==
        R"({"b":{"x":1,"z":9},"m":{"z":0,"x":1,"w":4}})");
  CHECK(one("l: &l [1, 2]\nagain: *l\nk: &k key\n*k : v\n") ==
        R"({"l":[1,2],"again":[1,2],"k":"key","key":"v"})");
  CHECK(error_of("a: *nowhere\n").find("alias *nowhere names no complete anchor") !=
        std::string::npos);
  CHECK(error_of("m:\n  <<: 5\n").find("a merge key (<<) takes a mapping") != std::string::npos);
  // Anchors belong to their document.
  CHECK(error_of("a: &x 1\n---\nb: *x\n").find("line 3, column 4") != std::string::npos);
  // An alias bomb is stopped.
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'k'; ++c) {
    const char prev = static_cast<char>(c - 1);
    bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
            prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + "]\n";
  }
  CHECK(error_of(bomb).find("an alias bomb?") != std::string::npos);
}

TEST_CASE("YAML documents: several, empty ones left out, errors with line and column") {
  CHECK(convert("a: 1\n---\n---\n# only a comment\n---\nb: 2\n...\n") ==
        std::vector<std::string>{R"({"a":1})", R"({"b":2})"});
  CHECK(convert("# nothing\n").empty());
  CHECK(error_of("a: .nan\n").find("line 1, column 4: \".nan\" is not a number JSON can hold") !=
        std::string::npos);
  CHECK(error_of("a: !!int abc\n").find("cannot read \"abc\" as !!int") != std::string::npos);
  CHECK(error_of("a: !!binary not*base64\n").find("!!binary value is not base64") !=
        std::string::npos);
  CHECK(error_of("18446744073709551615: x\n").find("beyond 64-bit integers") != std::string::npos);
  CHECK(error_of("a: &n .inf\n").find("is not a number JSON can hold") != std::string::npos);
  CHECK(error_of("k: &k [1]\n*k : v\n")
            .find("alias *k is not a scalar and cannot be a mapping key") != std::string::npos);
  CHECK(error_of("a: {b: 1\nc: 2\n").find("t.yaml: malformed YAML at line 2, column") == 0);
  std::string deep;
  for (int i = 0; i < 1100; ++i) deep += "[";
  CHECK(error_of(deep).find("nesting deeper than 1024 levels") != std::string::npos);
}

TEST_CASE("messages: values are cut and escaped so they stay on one line") {
  CHECK(whatif::clip("short") == "short");
  CHECK(whatif::clip("a\nb\tc\x07") == "a\\nb\\tc\\u0007");
  CHECK(whatif::clip("\xff ok") == "\\xff ok");
  const std::string longer(100, 'x');
  CHECK(whatif::clip(longer) == std::string(60, 'x') + "...(100 bytes)");
  // A cut never splits a UTF-8 character.
  std::string accents;
  for (int i = 0; i < 50; ++i) accents += "\xc3\xa9";
  CHECK(whatif::clip(accents) == accents.substr(0, 60) + "...(100 bytes)");
  CHECK(whatif::one_line("file\nname: bad") == "file\\nname: bad");
  CHECK(whatif::replace_value("invalid quantity \"" + longer + "\": x", longer) ==
        "invalid quantity \"" + std::string(60, 'x') + "...(100 bytes)\": x");
}

TEST_CASE("sizes for --max-input-size") {
  CHECK(whatif::parse_size("100") == 100u);
  CHECK(whatif::parse_size("8G") == (std::uint64_t{8} << 30));
  CHECK(whatif::parse_size("512mib") == (std::uint64_t{512} << 20));
  CHECK(whatif::parse_size("1Ki") == 1024u);
  CHECK_FALSE(whatif::parse_size("0"));
  CHECK_FALSE(whatif::parse_size("12x"));
  CHECK_FALSE(whatif::parse_size(""));
  CHECK_FALSE(whatif::parse_size("9999999T"));
  CHECK(whatif::format_size(std::uint64_t{4} << 30) == "4 GiB");
  CHECK(whatif::format_size(1000) == "1000 bytes");
}

TEST_CASE("the JSON value scanner finds where concatenated documents end") {
  const std::string_view two = "{\"a\": [1, 2]}\n  {\"b\": 1}";
  const auto first = whatif::scan_json_value(two);
  CHECK_FALSE(first.error);
  CHECK(first.end == 16);
  const auto second = whatif::scan_json_value(two.substr(first.end));
  CHECK_FALSE(second.error);
  CHECK(second.end == two.size() - first.end);
  const auto bad = whatif::scan_json_value("{\"a\": }");
  REQUIRE(bad.error);
  CHECK(bad.error->offset == 6);
}

TEST_CASE("text_buffer keeps simdjson's padding readable after its content") {
  whatif::text_buffer b;
  CHECK(b.size() == 0);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  CHECK(parser.parse(b.data(), b.size(), false).get(root) != simdjson::SUCCESS);  // empty, no crash
  b.append("{\"k\": ");
  b.append("[1, 2, 3]}");
  b.resize(b.size());
  REQUIRE(parser.parse(b.data(), b.size(), false).get(root) == simdjson::SUCCESS);
  CHECK(simdjson::minify(root) == R"({"k":[1,2,3]})");
  whatif::text_buffer moved = std::move(b);
  CHECK(moved.view() == "{\"k\": [1, 2, 3]}");
  CHECK(b.size() == 0);  // NOLINT(bugprone-use-after-move): moved-from is empty
}

// ---- Dynamic resource allocation kinds (dra_kinds.cpp) ------------------------------------------

namespace {

whatif::cluster_dump decode_objects(std::string_view json) {
  whatif::cluster_dump dump;
  dump.files.push_back("t.json");
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  REQUIRE(parser.parse(json.data(), json.size()).get(root) == simdjson::SUCCESS);
  simdjson::dom::array items;
  REQUIRE(root.get_array().get(items) == simdjson::SUCCESS);
  std::size_t i = 0;
  for (simdjson::dom::element item : items) {
    std::string_view kind;
    REQUIRE(item["kind"].get_string().get(kind) == simdjson::SUCCESS);
    const auto error = whatif::kinds::add_object(
        kind, item, whatif::kinds::origin{"t.json", 0, i, "items[" + std::to_string(i) + "]"},
        dump);
    REQUIRE_MESSAGE(!error, (error ? error->message : ""));
    ++i;
  }
  return dump;
}

}  // namespace

TEST_CASE("DRA kinds: a ResourceSlice's devices, counters and capacity policies") {
  const auto dump = decode_objects(R"([{"kind": "ResourceSlice", "metadata": {"name": "s"},
    "spec": {"driver": "gpu.example.com", "nodeName": "n1",
             "pool": {"name": "p", "generation": 3, "resourceSliceCount": 2},
             "devices": [{"name": "d0",
                          "attributes": {"model": {"string": "a100"}, "index": {"int": 7},
                                         "ok": {"bool": true}, "v": {"version": "1.2.3"},
                                         "ids": {"ints": [1, 2]}},
                          "capacity": {"memory": {"value": "40Gi",
                                       "requestPolicy": {"default": "1Gi",
                                                         "validRange": {"min": "1Gi", "step": "1Gi"}}}},
                          "consumesCounters": [{"counterSet": "c", "counters": {"mem": {"value": "10Gi"}}}],
                          "taints": [{"key": "k", "effect": "NoSchedule"}],
                          "bindingConditions": [],
                          "allowMultipleAllocations": true}],
             "sharedCounters": [{"name": "c", "counters": {"mem": {"value": "40Gi"}}}]}}])");
  REQUIRE(dump.dra.slices.size() == 1);
  const auto& s = dump.dra.slices[0];
  CHECK(s.driver == "gpu.example.com");
  CHECK(s.pool == "p");
  CHECK(s.generation == 3);
  CHECK(s.slice_count == 2);
  CHECK(*s.node_name == "n1");
  REQUIRE(s.devices.size() == 1);
  const auto& d = s.devices[0];
  using k = preempt::kubernetes::dra::attribute_value::kind_type;
  CHECK(d.find_attribute("model")->value.kind == k::string);
  CHECK(d.find_attribute("index")->value.integer == 7);
  CHECK(d.find_attribute("ok")->value.boolean);
  CHECK(d.find_attribute("v")->value.kind == k::version);
  CHECK(d.find_attribute("ids")->value.list_present);
  const auto* memory = d.find_capacity("memory");
  REQUIRE(memory != nullptr);
  CHECK(memory->value == preempt::kubernetes::dra::amount::of_units(40LL << 30));
  CHECK(memory->policy->valid_range);
  CHECK(*memory->policy->step == preempt::kubernetes::dra::amount::of_units(1LL << 30));
  CHECK(d.consumes_counters[0].counters[0].name == "mem");
  CHECK(d.taints[0].effect == "NoSchedule");
  CHECK(d.binding_conditions_present);
  CHECK(d.multiple_allocations());
  CHECK(s.shared_counters[0].counters[0].value ==
        preempt::kubernetes::dra::amount::of_units(40LL << 30));
}

TEST_CASE("DRA kinds: a ResourceClaim's requests, allocation and owner, a DeviceClass") {
  const auto dump = decode_objects(R"([
    {"kind": "DeviceClass", "metadata": {"name": "gpu"},
     "spec": {"selectors": [{"cel": {"expression": "device.driver == \"x\""}}],
              "extendedResourceName": "example.com/gpu"}},
    {"kind": "ResourceClaim",
     "metadata": {"name": "c", "namespace": "ml", "deletionTimestamp": "2026-01-01T00:00:00Z",
                  "ownerReferences": [{"uid": "other"}, {"uid": "pod-uid", "controller": true}]},
     "spec": {"devices": {"requests": [
                {"name": "r", "exactly": {"deviceClassName": "gpu", "count": 2, "adminAccess": true,
                                          "capacity": {"requests": {"bw": "10"}}}},
                {"name": "f", "firstAvailable": [{"name": "a", "deviceClassName": "gpu", "allocationMode": "All"}]}],
              "constraints": [{"requests": ["r"], "matchAttribute": "gpu.example.com/numa"}]}},
     "status": {"allocation": {"devices": {"results": [{"request": "r", "driver": "x", "pool": "p", "device": "d",
                                                        "shareID": "s1", "consumedCapacity": {"bw": "10"}}]},
                               "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                                 {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}},
                "reservedFor": [{"resource": "pods", "name": "p", "uid": "pod-uid"}]}}])");
  REQUIRE(dump.dra.classes.size() == 1);
  CHECK(*dump.dra.classes[0].selectors[0].cel == "device.driver == \"x\"");
  CHECK(*dump.dra.classes[0].extended_resource_name == "example.com/gpu");
  REQUIRE(dump.dra.claims.size() == 1);
  const auto& c = dump.dra.claims[0];
  CHECK(c.key() == "ml/c");
  CHECK(c.deleting);
  CHECK(*c.controller_uid == "pod-uid");
  CHECK(c.requests[0].exactly->device_count() == 2);
  CHECK(c.requests[0].exactly->admin());
  CHECK((*c.requests[0].exactly->capacity_requests)[0].first == "bw");
  CHECK(c.requests[1].first_available[0].all_mode());
  CHECK(*c.constraints[0].match_attribute == "gpu.example.com/numa");
  REQUIRE(c.allocation);
  CHECK(*c.allocation->devices[0].share_id == "s1");
  CHECK(c.allocation->devices[0].consumed_capacity->size() == 1);
  CHECK(c.allocation->node_selector->terms[0].match_fields[0].values[0] == "n1");
  CHECK(c.reserved_for[0].uid == "pod-uid");
}

// ---- The storage kinds, as the API server defaults them
// ------------------------------------------

namespace {

whatif::cluster_dump load(std::string_view json) {
  whatif::cluster_dump dump;
  whatif::loader l;
  const auto error = l.add_cluster(whatif::make_source("s.json", json), dump);
  REQUIRE_MESSAGE(!error, (error ? error->message : ""));
  return dump;
}

}  // namespace

TEST_CASE("storage kinds: a claim's class, annotations, owner and request") {
  const auto dump = load(R"({"kind": "List", "items": [
    {"kind": "PersistentVolumeClaim",
     "metadata": {"name": "data", "namespace": "db", "uid": "u1",
                  "annotations": {"volume.beta.kubernetes.io/storage-class": "beta",
                                  "pv.kubernetes.io/bind-completed": "",
                                  "volume.kubernetes.io/selected-node": "n2"},
                  "ownerReferences": [{"uid": "not-it"}, {"uid": "pod-uid", "controller": true}]},
     "spec": {"storageClassName": "spec", "volumeName": "pv-1", "accessModes": ["ReadWriteOncePod"],
              "resources": {"requests": {"storage": "1Gi"}}, "volumeMode": "Block"},
     "status": {"phase": "Lost"}},
    {"kind": "PersistentVolumeClaim", "metadata": {"name": "plain"}, "spec": {}}]})");
  REQUIRE(dump.storage.claims.size() == 2);
  const auto& c = dump.storage.claims[0];
  CHECK(c.ns == "db");
  CHECK(c.class_name == std::optional<std::string>("beta"));  // the annotation wins
  CHECK(c.bind_completed);                                    // present, whatever its value
  CHECK(c.selected_node == std::optional<std::string>("n2"));
  CHECK(c.controller_uid == std::optional<std::string>("pod-uid"));
  CHECK(c.storage_request == std::optional<std::int64_t>(std::int64_t{1} << 30));
  CHECK(c.access_modes == preempt::kubernetes::read_write_once_pod);
  CHECK(c.block);
  CHECK(c.lost);
  const auto& plain = dump.storage.claims[1];
  CHECK(plain.ns == "default");
  CHECK_FALSE(plain.class_name);
  CHECK_FALSE(plain.bind_completed);
}

TEST_CASE("storage kinds: defaults of volumes, classes, drivers and pods' rbd volumes") {
  const auto dump = load(R"({"kind": "List", "items": [
    {"kind": "PersistentVolume", "metadata": {"name": "pv-1"},
     "spec": {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
              "capacity": {"storage": "10Gi"}, "storageClassName": "gp3",
              "claimRef": {"namespace": "db", "name": "data", "uid": "u1"}}},
    {"kind": "StorageClass", "metadata": {"name": "gp3"}, "provisioner": "ebs.csi.aws.com",
     "allowedTopologies": [{"matchLabelExpressions": [{"key": "zone", "values": ["a", "b"]}]}]},
    {"kind": "CSIDriver", "metadata": {"name": "ebs.csi.aws.com"}, "spec": {}},
    {"kind": "CSINode", "metadata": {"name": "n1", "annotations":
       {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs,kubernetes.io/gce-pd"}},
     "spec": {"drivers": [{"name": "ebs.csi.aws.com", "allocatable": {"count": 25}},
                          {"name": "other"}]}},
    {"kind": "Pod", "metadata": {"name": "p"},
     "spec": {"containers": [], "volumes": [{"name": "cm", "configMap": {"name": "x"}},
                                            {"name": "r", "rbd": {"monitors": ["m"], "image": "i"}}]}}]})");
  REQUIRE(dump.storage.volumes.size() == 1);
  const auto& v = dump.storage.volumes[0];
  CHECK(v.phase == "Pending");  // no status: the API server's default
  CHECK(v.source == preempt::kubernetes::volume_source::csi);
  CHECK(v.csi_handle == "vol-1");
  CHECK(v.capacity == std::int64_t{10} << 30);
  CHECK(v.claim->uid == "u1");
  REQUIRE(dump.storage.classes.size() == 1);
  CHECK_FALSE(dump.storage.classes[0].wait_for_first_consumer);  // Immediate by default
  CHECK(dump.storage.classes[0].allowed_topologies.size() == 1);
  REQUIRE(dump.storage.drivers.size() == 1);
  CHECK_FALSE(dump.storage.drivers[0].storage_capacity);
  CHECK_FALSE(dump.storage.drivers[0].prevent_scheduling_if_missing);
  REQUIRE(dump.storage.csi_nodes.size() == 1);
  const auto& n = dump.storage.csi_nodes[0];
  CHECK(n.migrated_plugins ==
        std::vector<std::string>{"kubernetes.io/aws-ebs", "kubernetes.io/gce-pd"});
  CHECK(n.drivers[0].count == std::optional<std::int32_t>(25));
  CHECK_FALSE(n.drivers[1].count);
  REQUIRE(dump.pods.size() == 1);
  REQUIRE(dump.pods[0].volumes.size() == 1);  // the configMap is not kept
  CHECK(dump.pods[0].volumes[0].position == 1);
  CHECK(dump.pods[0].volumes[0].pool == "rbd");
}
