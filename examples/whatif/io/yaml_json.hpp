// examples/whatif/io/yaml_json.hpp - YAML to JSON text, the way Kubernetes reads YAML (kubectl and
// the API server convert it with sigs.k8s.io/yaml: go-yaml v2's YAML 1.1 scalars, then JSON), so
// that a YAML dump goes through the same simdjson parse and the same field tables as a JSON one.
//
// Parsed with libyaml (events, chosen by measured speed on a 5000-node dump, see README). One
// JSON document per YAML document (`---`) in `docs`; empty documents (null) are left out. Scalars
// resolve as go-yaml v2 resolves them: unquoted true/false/yes/no/on/off/y/n (any of their usual
// capitalizations) are booleans, ~/null/empty are null, integers take Go's base prefixes (0x, 0o,
// 0b, a leading 0 for octal) and underscores, floats YAML's decimal syntax; quoted scalars and
// everything else are strings, as are unquoted timestamps (kept as written). Explicit tags (!!str,
// !!int, ...) are honoured. Mapping keys become strings as sigs.k8s.io/yaml makes them (true ->
// "true", 0x10 -> "16"); a null, timestamp or collection key is an error. A key given twice keeps
// its last value (the earlier member is removed, so nothing merges). Anchors and aliases are
// expanded, merge keys
// (`<<: *base`, `<<: [*a, *b]`) too, with explicit keys winning; expansion is capped (16 times the
// input plus 64 MiB) against alias bombs. .nan and .inf are errors (JSON has no such numbers).
//
// Errors name the line and column: "dump.yaml: malformed YAML at line 3, column 5: mapping
// values are not allowed in this context". O(n) time; the JSON text is about the input's size.
// Allocation failure throws std::bad_alloc; nothing else throws. Not thread-safe (one call at a
// time per buffer).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_YAML_JSON_HPP
#define PREEMPT_WHATIF_YAML_JSON_HPP

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "io/input.hpp"

namespace whatif {

// One JSON document in the converted text: [begin, end) and the YAML line it starts on.
struct json_document {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t line = 0;
};

// Converts the YAML stream `yaml` (UTF-8) into JSON documents appended to `json`.
std::optional<load_error> yaml_to_json(std::string_view name, std::string_view yaml,
                                       text_buffer& json, std::vector<json_document>& docs);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_YAML_JSON_HPP
