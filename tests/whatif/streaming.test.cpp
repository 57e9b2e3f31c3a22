// Inputs read a window at a time (json_stream.hpp, loader::add_cluster(open_input&, ...)): the
// value scanner, and the loader on pipes and files (mapped, items parsed ahead on a second
// thread) with windows far smaller than the input, so that items are split across reads, against
// the same text read whole.
//
// SPDX-License-Identifier: Apache-2.0
#include <fcntl.h>
#include <unistd.h>

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "io/input.hpp"
#include "io/json_stream.hpp"
#include "io/loader.hpp"

namespace {

constexpr std::size_t npos = std::string_view::npos;

std::string bundled_cluster() {
  std::ifstream f(PREEMPT_WHATIF_DATA_DIR "/cluster.json", std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A summary of what a dump holds, to compare two reads of the same text.
std::string summary(const whatif::cluster_dump& d) {
  std::string s;
  for (const auto& n : d.nodes)
    s += "node " + n.name + " " + std::to_string(n.labels.size()) + "\n";
  for (const auto& p : d.pods)
    s += "pod " + p.key() + " on " + p.node_name + " item " + std::to_string(p.item) + " labels " +
         std::to_string(p.labels.size()) + "\n";
  for (const auto& b : d.pdbs) s += "pdb " + b.ns + "/" + b.name + "\n";
  s += "classes " + std::to_string(d.classes.size()) + "\n";
  for (const auto& [kind, n] : d.ignored) s += "ignored " + kind + " " + std::to_string(n) + "\n";
  for (const auto& f : d.files) s += "file " + f + "\n";
  return s;
}

struct result {
  std::string summary;
  std::string error;  // "" when loaded
  std::size_t streamed = 0;
};

// The text read whole.
result whole(const std::string& text, const std::string& name) {
  whatif::loader l;
  whatif::cluster_dump d;
  const auto e = l.add_cluster(whatif::make_source(name, text), d);
  return {summary(d), e ? e->message : "", 0};
}

result read_open(int fd, const std::string& name, std::size_t window, std::uint64_t max_size) {
  whatif::loader l;
  l.set_stream_window_size(window);
  whatif::cluster_dump d;
  whatif::open_input in;
  auto e = whatif::open_descriptor(fd, name, max_size, window, in);
  if (!e) e = l.add_cluster(in, d, max_size);
  return {summary(d), e ? e->message : "", l.streamed_inputs()};
}

// The text through a pipe, written by another thread as the loader reads.
result through_pipe(const std::string& text, std::size_t window,
                    std::uint64_t max_size = whatif::default_max_input_size) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::thread writer([&] {
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;  // the reader stopped early (an error): EPIPE
      done += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
  });
  result r = read_open(fds[0], "<stdin>", window, max_size);
  ::close(fds[0]);
  writer.join();
  return r;
}

// The text from a regular file, handed over at offset `skip` (standard input redirected from a
// file that another reader read the first `skip` bytes of).
result from_file(const std::string& text, std::size_t window, std::size_t skip = 0) {
  char path[] = "/tmp/preempt-whatif-streaming-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  REQUIRE(::lseek(fd, static_cast<off_t>(skip), SEEK_SET) == static_cast<off_t>(skip));
  result r = read_open(fd, "cluster.json", window, whatif::default_max_input_size);
  ::close(fd);
  ::unlink(path);
  return r;
}

// The bundled example with strings that hold braces, brackets, escaped quotes and runs of
// backslashes (odd and even), in an annotation of every pod.
std::string tricky_cluster() {
  std::string text = bundled_cluster();
  const std::string anchor = "\"kind\": \"Pod\",";
  const std::string extra =
      R"("metadata2": {"annotations": {"a": "}]}]\"{[\\", "b": "\\\\\"}}", "c": "\\\\\\\\"}},)";
  for (std::size_t at = text.find(anchor); at != npos; at = text.find(anchor, at + 1))
    text.insert(at + anchor.size(), extra);
  return text;
}

}  // namespace

// A reader that stops early closes the pipe: the writer gets EPIPE, not SIGPIPE.
const bool sigpipe_ignored = std::signal(SIGPIPE, SIG_IGN) != SIG_ERR;

TEST_CASE("find_value_end: strings hide brackets, escaped quotes do not end them") {
  REQUIRE(sigpipe_ignored);
  CHECK(whatif::find_value_end(R"({"a": "}"} tail)") == 10);
  CHECK(whatif::find_value_end(R"([1, [2], {"x": "]"}], 3)") == 20);
  CHECK(whatif::find_value_end(R"({"a": "\"}"} x)") == 12);
  CHECK(whatif::find_value_end(R"({"a": "\\"} x)") == 11);
  CHECK(whatif::find_value_end(R"({"a": "\\\"}"} x)") == 14);
  CHECK(whatif::find_value_end(R"("ab\"c", 1)") == 7);
  CHECK(whatif::find_value_end("123, 4") == 3);
  CHECK(whatif::find_value_end("true}") == 4);
  // Unfinished values: the caller reads on.
  CHECK(whatif::find_value_end(R"({"a": "}")") == npos);
  CHECK(whatif::find_value_end(R"({"a": [1, 2})") == npos);
  CHECK(whatif::find_value_end("12") == npos);
  CHECK(whatif::find_value_end("") == npos);
}

TEST_CASE("find_value_end: strings and backslash runs across 64-byte blocks") {
  for (std::size_t pad = 0; pad < 140; ++pad) {
    CAPTURE(pad);
    // A string whose backslash run straddles a block boundary, then a closing brace in a string.
    const std::string v = "{\"k\": \"" + std::string(pad, 'x') + "\\\\\\\"}\\\\\", \"z\": \"}\"}";
    CHECK(whatif::find_value_end(v + " ,{}") == v.size());
    const std::string open_string = "{\"k\": \"" + std::string(pad, 'y') + "}]";
    CHECK(whatif::find_value_end(open_string) == npos);
    const std::string nested = std::string(pad + 1, '[') + std::string(pad + 1, ']');
    CHECK(whatif::find_value_end(nested + "]") == nested.size());
  }
}

// The scanner against a byte-at-a-time reference on random texts of brackets, quotes and
// backslash runs (escapes straddling blocks, odd and even runs), with both instruction sets.
std::size_t reference_value_end(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // A backslash escapes the next byte, in strings and (not JSON, but the scanner does not
    // tell) outside them; an escaped quote or backslash is an ordinary byte.
    const bool plain = escaped && (c == '"' || c == '\\');
    escaped = !escaped && c == '\\';
    if (plain || c == '\\') continue;
    if (c == '"') {
      in_string = !in_string;
    } else if (in_string) {
      continue;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return npos;
}

TEST_CASE("find_value_end: random brackets, strings and backslash runs, against a byte loop") {
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL;
  const auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  constexpr std::string_view alphabet = "{}[]\"\\\\ x";
  std::size_t ended = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text(1, next() % 2 == 0 ? '{' : '[');
    const std::size_t length = next() % 400;
    // Mostly backslashes and quotes in some texts, mostly brackets in others.
    const std::size_t bias = next() % 3;
    while (text.size() < length) {
      const std::uint64_t r = next();
      if (bias == 0 && r % 4 == 0)
        text.append(static_cast<std::size_t>(r >> 8) % 9, '\\');
      else
        text += alphabet[static_cast<std::size_t>(r >> 16) % alphabet.size()];
    }
    CAPTURE(text);
    const std::size_t want = reference_value_end(text);
    ended += want != npos;
    CHECK(whatif::find_value_end(text) == want);
    CHECK(whatif::detail::container_end_portable(text) == want);
  }
  CHECK(ended > 1000);  // the texts exercise both outcomes
}

TEST_CASE("a List through a pipe, split across windows, reads as the same text whole") {
  for (const std::string& text : {bundled_cluster(), tricky_cluster()}) {
    const result expected = whole(text, "<stdin>");
    REQUIRE(expected.error.empty());
    for (std::size_t window :
         {std::size_t{64}, std::size_t{100}, std::size_t{1000}, std::size_t{4096}}) {
      CAPTURE(window);
      const result got = through_pipe(text, window);
      CHECK(got.error.empty());
      CHECK(got.streamed == 1);
      CHECK(got.summary == expected.summary);
    }
  }
}

TEST_CASE("a List from a file, split across windows, reads as the same text whole") {
  const std::string text = tricky_cluster();
  const result expected = whole(text, "cluster.json");
  const result got = from_file(text, 256);
  CHECK(got.error.empty());
  CHECK(got.streamed == 1);
  CHECK(got.summary == expected.summary);
}

TEST_CASE("a List of many items from a file: delimited ahead, parsed by either thread, in order") {
  // Small items, many more than the parsers in flight: the second thread and the caller both
  // parse, in whatever interleaving the run takes; the result is the text read whole.
  std::string text = R"({"kind": "List", "apiVersion": "v1", "items": [)";
  for (int i = 0; i < 3000; ++i) {
    if (i > 0) text += ",\n";
    text += R"({"kind": "Pod", "metadata": {"name": "p)" + std::to_string(i) +
            R"(", "namespace": "ns", "labels": {"i": ")" + std::to_string(i % 7) +
            R"("}, "managedFields": [{"k:{\"a\":\"}\"}": {}}]}, "spec": {"nodeName": "n"}})";
    if (i % 500 == 0)
      text += ",\n" + std::string(R"({"kind": "Node", "metadata": {"name": "n)") +
              std::to_string(i) + R"("}})";
  }
  text += "]}";
  const result expected = whole(text, "cluster.json");
  REQUIRE(expected.error.empty());
  for (int run = 0; run < 5; ++run) {
    const result got = from_file(text, 4096);
    CHECK(got.error.empty());
    CHECK(got.streamed == 1);
    CHECK(got.summary == expected.summary);
  }
}

TEST_CASE("a file handed over part-read is read from where the first reader stopped") {
  const std::string text = tricky_cluster();
  const std::string prefix =
      "[1, 2, 3]\n{\"kind\": \"Namespace\", \"metadata\": {\"name\": \"x\"}}\n";
  const result expected = whole(text, "cluster.json");
  const result got = from_file(prefix + text, 256, prefix.size());
  CHECK(got.error.empty());
  CHECK(got.summary == expected.summary);
}

TEST_CASE("concatenated documents, container logs, arrays and nested lists through a pipe") {
  const std::string list = bundled_cluster();
  const std::string text = list +
                           "==== START logs for container app of pod a/b ====\n{ not json ]\n"
                           "==== END logs for container app of pod a/b ====\n" +
                           "[" + list + "]\n" + R"({"kind": "List", "items": [)" + list + "]}";
  const result expected = whole(text, "<stdin>");
  REQUIRE(expected.error.empty());
  const result got = through_pipe(text, 128);
  CHECK(got.error.empty());
  CHECK(got.streamed == 1);
  CHECK(got.summary == expected.summary);
}

TEST_CASE("a NodeList whose items leave out kind, with kind first, streams") {
  std::string items;
  for (int i = 0; i < 40; ++i) {
    if (i) items += ",";
    items += R"({"metadata": {"name": "n)" + std::to_string(i) +
             R"("}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})";
  }
  const std::string text = R"({"kind": "NodeList", "apiVersion": "v1", "items": [)" + items + "]}";
  const result expected = whole(text, "<stdin>");
  REQUIRE(expected.error.empty());
  const result got = through_pipe(text, 64);
  CHECK(got.error.empty());
  CHECK(got.summary == expected.summary);

  // Kind after items that leave it out: a file is read again whole; a pipe cannot be.
  const std::string late = R"({"items": [)" + items + R"(], "kind": "NodeList"})";
  CHECK(from_file(late, 64).summary == whole(late, "cluster.json").summary);
  const result piped = through_pipe(late, 64);
  CHECK(piped.error ==
        "<stdin>: holds items without kind before the list's kind, which is read whole, and is "
        "larger than the stream window: save it to a file and name the file");
}

TEST_CASE("a file of many items: the thread parsing ahead wraps around its parsers") {
  std::string items;
  for (int i = 0; i < 500; ++i) {
    if (i) items += ",\n";
    items += R"({"kind": "Node", "metadata": {"name": "n)" + std::to_string(i) +
             R"(", "labels": {"a": "{[\"x"}}, "status": {"allocatable": {"cpu": "4"}}})";
  }
  const std::string text = R"({"apiVersion": "v1", "items": [)" + items + R"(], "kind": "List"})";
  const result expected = whole(text, "cluster.json");
  REQUIRE(expected.error.empty());
  const result got = from_file(text, 4096);
  CHECK(got.error.empty());
  CHECK(got.streamed == 1);
  CHECK(got.summary == expected.summary);
  // Cut inside item 400, or just after the ',' that follows item 300: the file's messages.
  const std::string cut = text.substr(0, text.find("\"n400\"") + 3);
  CHECK(from_file(cut, 4096).error == whole(cut, "cluster.json").error);
  const std::string after_comma =
      text.substr(0, text.find("{\"kind\": \"Node\", \"metadata\": {\"name\": \"n301\""));
  CHECK(from_file(after_comma, 4096).error == whole(after_comma, "cluster.json").error);
  CHECK(!from_file(after_comma, 4096).error.empty());
}

TEST_CASE("truncated and malformed streams: one line naming the item and the byte") {
  const std::string text = bundled_cluster();
  const std::size_t cut = text.find("\"kind\": \"Pod\"");
  REQUIRE(cut != npos);
  const result truncated = through_pipe(text.substr(0, cut + 40), 256);
  CHECK(truncated.error == "<stdin>: items[5]: the input ends inside this value (at byte " +
                               std::to_string(cut + 40) + "): truncated?");

  std::string broken = text;
  const std::size_t at = broken.find("\"spec\"", cut);
  broken.replace(at, 6, "\"spec\" 1");  // a value where ':' belongs
  const result malformed = through_pipe(broken, 256);
  CHECK(malformed.error.rfind("<stdin>: items[5]: malformed JSON at byte ", 0) == 0);
  CHECK(malformed.error.find('\n') == npos);

  // From a file, the same message as the whole text (line and column).
  const result whole_file = whole(broken, "cluster.json");
  CHECK(from_file(broken, 256).error == whole_file.error);
  CHECK(whole_file.error.find("line ") != npos);
}

TEST_CASE(
    "separators of streamed arrays: a missing comma or closing bracket is named with its byte") {
  const std::string item =
      R"({"kind": "Namespace", "metadata": {"name": ")" + std::string(200, 'a') + R"("}})";
  const std::string list = R"({"kind": "List", "items": [)";
  // Between items of a List, and between values of a top-level array.
  const std::string no_comma = list + item + " " + item + "]}";
  CHECK(through_pipe(no_comma, 64).error == "<stdin>: malformed JSON at byte " +
                                                std::to_string(list.size() + item.size() + 1) +
                                                ": expected ',' or ']' after an item");
  const std::string array_no_comma = "[" + item + "\n" + item + "]";
  CHECK(through_pipe(array_no_comma, 64).error == "<stdin>: malformed JSON at byte " +
                                                      std::to_string(1 + item.size() + 1) +
                                                      ": expected ',' or ']' after an array value");
  // The input ends after an element, or after a ','.
  const std::string open_list = list + item;
  CHECK(through_pipe(open_list, 64).error == "<stdin>: malformed JSON at byte " +
                                                 std::to_string(open_list.size()) +
                                                 ": the input ends inside the items array");
  const std::string open_array = "[" + item + ",\n ";
  CHECK(through_pipe(open_array, 64).error == "<stdin>: malformed JSON at byte " +
                                                  std::to_string(open_array.size()) +
                                                  ": the input ends inside an array");
  // Empty ones are fine, and so is whitespace anywhere between.
  const std::string spaced = "[ " + item + " ,\n\t" + item + " ]\n" + list + " ]}";
  const result ok = through_pipe(spaced, 64);
  CHECK(ok.error.empty());
  CHECK(ok.summary == whole(spaced, "<stdin>").summary);
}

TEST_CASE("a stream past the size limit names the limit") {
  const result r = through_pipe(bundled_cluster(), 1024, 4096);
  CHECK(r.error ==
        "<stdin>: holds more than 4 KiB, more than the input size limit of 4 KiB "
        "(--max-input-size raises it)");
}

TEST_CASE("inputs within one window, YAML and single objects are read whole") {
  const std::string text = bundled_cluster();
  CHECK(through_pipe(text, 1 << 20).streamed == 0);
  const std::string yaml =
      "kind: List\nitems:\n- kind: Namespace\n  metadata:\n    name: " + std::string(300, 'a') +
      "\n";
  const result y = through_pipe(yaml, 64);
  CHECK(y.error.empty());
  CHECK(y.summary == whole(yaml, "<stdin>").summary);
  const std::string pod =
      R"({"kind": "Namespace", "metadata": {"name": ")" + std::string(300, 'b') + R"("}})";
  CHECK(through_pipe(pod, 64).error.find("holds a single Namespace") != npos);
  CHECK(from_file(pod, 64).summary == whole(pod, "cluster.json").summary);
}
