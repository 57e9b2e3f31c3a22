// preempt-whatif-json-bench - how fast Debian's JSON libraries parse a cluster dump, and how they
// report a syntax error. This is the measurement behind preempt-whatif's choice of JSON library.
//
//   preempt-whatif-json-bench FILE [REPEAT]
//
// For each library: the best of REPEAT (default 3) full parses of FILE into its document model,
// in processor time of the process (robust to other load on the machine) and in wall time, then
// the error it reports for the same text cut off in the middle. Built only with
// -DPREEMPT_WHATIF_JSON_BENCH=ON (it needs nlohmann-json3-dev, rapidjson-dev and libsimdjson-dev).
//
// SPDX-License-Identifier: Apache-2.0
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "stopwatch.hpp"

namespace {

using timing = whatif::best_time;

timing best_of(int repeat, const std::function<std::size_t()>& run, std::size_t& check) {
  return whatif::best_time::of(repeat, run, check);
}

// Counts every value of a simdjson on-demand document, which makes it parse everything.
std::size_t count_ondemand(simdjson::ondemand::value v) {
  std::size_t n = 1;
  simdjson::ondemand::json_type t;
  if (v.type().get(t)) return n;
  if (t == simdjson::ondemand::json_type::object) {
    simdjson::ondemand::object o;
    if (v.get_object().get(o)) return n;
    for (auto field : o) {
      simdjson::ondemand::value child;
      if (field.value().get(child)) return n;
      n += count_ondemand(child);
    }
  } else if (t == simdjson::ondemand::json_type::array) {
    simdjson::ondemand::array a;
    if (v.get_array().get(a)) return n;
    for (auto element : a) {
      simdjson::ondemand::value child;
      if (element.get(child)) return n;
      n += count_ondemand(child);
    }
  } else {
    std::string_view raw = v.raw_json_token();
    n += raw.empty() ? 0 : 0;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: preempt-whatif-json-bench FILE [REPEAT]\n", stderr);
    return 2;
  }
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 3;
  std::ifstream in(argv[1], std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const double mb = static_cast<double>(text.size()) / 1e6;
  std::printf("%s: %.1f MB, best of %d\n", argv[1], mb, repeat);
  const std::string cut = text.substr(0, text.size() / 2);

  std::size_t check = 0;
  auto report = [&](const char* name, timing t) {
    std::printf("  %-36s cpu %7.3f s (%5.0f MB/s)  wall %7.3f s  (check %zu)\n", name, t.cpu,
                mb / t.cpu, t.wall, check);
    std::fflush(stdout);
  };

  {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    report("simdjson 3.0.1 dom::parser", best_of(
                                             repeat,
                                             [&] {
                                               simdjson::dom::element doc;
                                               if (parser.parse(padded).get(doc))
                                                 return std::size_t{0};
                                               simdjson::dom::array items;
                                               if (doc["items"].get(items)) return std::size_t{0};
                                               return items.size();
                                             },
                                             check));
    simdjson::ondemand::parser od;
    report("simdjson 3.0.1 ondemand (all values)", best_of(
                                                       repeat,
                                                       [&] {
                                                         simdjson::ondemand::document d;
                                                         if (od.iterate(padded).get(d))
                                                           return std::size_t{0};
                                                         simdjson::ondemand::value v;
                                                         if (d.get_value().get(v))
                                                           return std::size_t{0};
                                                         return count_ondemand(v);
                                                       },
                                                       check));
    simdjson::padded_string bad(cut);
    simdjson::dom::element doc;
    const auto err = parser.parse(bad).get(doc);
    std::printf("    truncated input: \"%s\" (no position)\n", simdjson::error_message(err));
  }
  {
    report("rapidjson 1.1.0 Document::Parse",
           best_of(
               repeat,
               [&] {
                 rapidjson::Document d;
                 d.Parse(text.data(), text.size());
                 return d.HasParseError() ? 0 : static_cast<std::size_t>(d["items"].Size());
               },
               check));
    std::vector<char> buffer;
    report("rapidjson 1.1.0 ParseInsitu",
           best_of(
               repeat,
               [&] {
                 buffer.assign(text.begin(), text.end());
                 buffer.push_back('\0');
                 rapidjson::Document d;
                 d.ParseInsitu(buffer.data());
                 return d.HasParseError() ? 0 : static_cast<std::size_t>(d["items"].Size());
               },
               check));
    rapidjson::Document d;
    d.Parse(cut.data(), cut.size());
    std::printf("    truncated input: \"%s\" at offset %zu\n",
                rapidjson::GetParseError_En(d.GetParseError()), d.GetErrorOffset());
  }
  {
    report("nlohmann-json 3.11.2 json::parse",
           best_of(
               repeat,
               [&] {
                 const auto j = nlohmann::json::parse(text, nullptr, false);
                 return j.is_discarded() ? 0 : j["items"].size();
               },
               check));
    try {
      (void)nlohmann::json::parse(cut);
    } catch (const nlohmann::json::parse_error& e) {
      std::printf("    truncated input: \"%s\"\n", e.what());
    }
  }
  return 0;
}
