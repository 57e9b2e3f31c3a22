// examples/whatif/decode/decoder.hpp - the generic half of preempt-whatif's object decoding: an
// error context (file, object, field path), typed reads of simdjson DOM values, and field tables.
//
// A field table lists the members of one JSON object the tool reads: the key, the reader that
// stores the value into the target, and whether the member is required. Readers are small
// templates over a member path (`text<&taint::key>`, `int32<&pod_object::priority,
// &pod_priority_spec::priority>`, `list<&node_selector::terms, term_fields>`, ...), so a table
// reads like the Kubernetes type it decodes (kinds.cpp has one per kind).
//
// read_fields() walks the object's members once, in document order, and never looks a key up.
// A key given twice is therefore read twice into the same target, as Go's encoding/json does: a
// later scalar or list replaces the earlier one, a later object or map merges into it key by key.
// `null` clears a list, a map or an optional value (Go's nil) and leaves any other value as it
// was.
//
// Every read returns false after recording the first error; callers stop there, so the message is
// about the first problem found. Values quoted in messages are cut and escaped (one_line.hpp).
// No exceptions of its own; allocation only for decoded values and messages; not thread-safe
// (one context per object).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_DECODER_HPP
#define PREEMPT_WHATIF_DECODER_HPP

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "decode/dump.hpp"
#include "io/input.hpp"

namespace whatif::decode {

namespace dom = simdjson::dom;

// "an object", "a string", ... for messages.
std::string_view type_name(dom::element_type t) noexcept;

// The error context of one object: which file, which object, which field.
class context {
 public:
  // `item` is the object's position ("items[3]") when it has no name yet; empty for a document.
  context(std::string_view file, std::string_view kind, std::string item);

  void identify(std::string_view ns, std::string_view name) {
    ns_ = ns;
    name_ = name;
  }

  bool ok() const noexcept { return !error_; }
  std::optional<load_error> take_error() { return std::move(error_); }

  // A path segment that pops itself.
  class scope {
   public:
    explicit scope(context& x) : x_(x) {}
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    ~scope() { x_.path_.pop_back(); }

   private:
    context& x_;
  };
  [[nodiscard]] scope field(std::string_view key) {
    path_.push_back({key, 0, false});
    return scope(*this);
  }
  [[nodiscard]] scope index(std::size_t i) {
    path_.push_back({{}, i, true});
    return scope(*this);
  }

  // Records `problem` at the current path (the first error only); returns false.
  bool fail(std::string_view problem);
  bool wrong_type(dom::element e, std::string_view expected);

  bool read_object(dom::element e, dom::object& out);
  bool read_array(dom::element e, dom::array& out);
  bool read_string(dom::element e, std::string_view& out);
  bool read_string(dom::element e, std::string& out);
  bool read_bool(dom::element e, bool& out);
  bool read_int32(dom::element e, std::int32_t& out);
  // A quantity of `resource`: a string (spaces trimmed, as Kubernetes does) or a number; at most
  // 2^62 and not negative.
  bool read_quantity(dom::element e, std::string_view resource, std::int64_t& out);
  // An RFC 3339 time. Times outside the nanosecond range of 1677-09-21 .. 2262-04-11 are valid
  // (Go's time.Time has no such limit) and are held as the first or last representable instant.
  bool read_time(dom::element e, preempt::timestamp& out);

 private:
  struct segment {
    std::string_view key;
    std::size_t index;
    bool is_index;
  };
  std::string render_path() const;

  std::string_view file_;
  std::string_view kind_;
  std::string item_;
  std::string_view ns_, name_;
  std::vector<segment> path_;
  std::optional<load_error> error_;
};

// ---- Field tables ----------------------------------------------------------------------------

template <class T>
struct field {
  using target_type = T;
  using read_fn = bool (*)(context&, dom::element, T&);
  using null_fn = void (*)(T&);

  // `Reader` is one of the reader types below (static read() and on_null); its target may be T
  // or a base class of T.
  template <class Reader>
    requires requires { &Reader::read; }
  constexpr field(std::string_view k, Reader, bool required_ = false)
      : key(k), read(&call<Reader>), on_null(null_action<Reader>()), required(required_) {}
  template <class Reader>
    requires requires { &Reader::read; }
  constexpr field(std::string_view k, Reader, null_fn null_action_)
      : key(k), read(&call<Reader>), on_null(null_action_) {}
  // A reader written out for one field (a lambda).
  constexpr field(std::string_view k, read_fn f, null_fn null_action_ = nullptr)
      : key(k), read(f), on_null(null_action_) {}
  constexpr field(std::string_view k, read_fn f, bool required_)
      : key(k), read(f), on_null(nullptr), required(required_) {}

  std::string_view key;
  read_fn read;
  null_fn on_null;  // nullptr: null leaves the value as it was
  bool required = false;

 private:
  template <class Reader>
  static bool call(context& x, dom::element e, T& t) {
    return Reader::read(x, e, t);
  }
  template <class Reader>
  static void clear(T& t) {
    Reader::on_null(t);
  }
  template <class Reader>
  static constexpr null_fn null_action() {
    if constexpr (Reader::on_null == nullptr) {
      return nullptr;
    } else {
      return &clear<Reader>;
    }
  }
};

inline constexpr bool required = true;

// Reads the members of object `e` listed in `table` into `target`; other members are skipped.
// A required member that is absent or null is an error ("missing").
template <class T>
bool read_fields(context& x, dom::element e, std::span<const field<T>> table, T& target) {
  dom::object o;
  if (!x.read_object(e, o)) return false;
  std::uint64_t seen = 0;  // bit i: table[i] had a non-null value
  for (dom::key_value_pair kv : o) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      const field<T>& f = table[i];
      if (f.key != kv.key) continue;
      if (kv.value.is_null()) {
        if (f.on_null != nullptr) f.on_null(target);
        break;
      }
      auto s = x.field(f.key);
      if (!f.read(x, kv.value, target)) return false;
      seen |= std::uint64_t{1} << (i % 64);
      break;
    }
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!table[i].required || (seen & (std::uint64_t{1} << (i % 64))) != 0) continue;
    auto s = x.field(table[i].key);
    return x.fail("missing");
  }
  return true;
}
// The same with a table of T for a target of type T or derived from T.
template <class T, std::size_t N, class U>
  requires std::derived_from<U, T>
bool read_fields(context& x, dom::element e, const field<T> (&table)[N], U& target) {
  static_assert(N <= 64, "read_fields tracks at most 64 fields per table");
  return read_fields(x, e, std::span<const field<T>>(table), static_cast<T&>(target));
}

// ---- Readers ---------------------------------------------------------------------------------
// Each names its target by a member path from the table's type: `text<&pod_object::phase>`
// stores into `target.phase`, `text<&pod_object::priority,
// &pod_priority_spec::priority_class_name>` into `target.priority.priority_class_name`.

namespace detail {

template <class M>
struct member_traits;
template <class C, class V>
struct member_traits<V C::*> {
  using owner = C;
};
template <auto First, auto...>
struct first_owner {
  using type = typename member_traits<decltype(First)>::owner;
};
// The type a member path starts from.
template <auto... Path>
using owner_of = typename first_owner<Path...>::type;

template <auto... Path, class T>
auto& at(T& t) {
  return (t.*....*Path);
}

// What null does to a member of type V: Go sets pointers, maps and slices to nil.
template <class V>
inline constexpr bool nullable = false;
template <class V>
inline constexpr bool nullable<std::optional<V>> = true;
template <class V>
inline constexpr bool nullable<std::vector<V>> = true;
template <>
inline constexpr bool nullable<k8s::label_set> = true;
template <>
inline constexpr bool nullable<k8s::resource_list> = true;

template <auto... Path>
struct member_reader {
  using target = owner_of<Path...>;
  using value = std::remove_reference_t<decltype(at<Path...>(std::declval<target&>()))>;
  static void clear(target& t) { at<Path...>(t) = value{}; }
  static constexpr void (*on_null)(target&) = nullable<value> ? &clear : nullptr;
};

// Sets key `k` of a list of pairs (a later value replaces an earlier one, as in a map).
void set_pair(std::vector<std::pair<std::string, std::string>>& pairs, std::string_view k,
              std::string_view v);

// Reads array `e` into `out` (replacing its content), each element with read_one(element, slot).
template <class V, class ReadOne>
bool read_each(context& x, dom::element e, std::vector<V>& out, ReadOne&& read_one) {
  out.clear();
  dom::array a;
  if (!x.read_array(e, a)) return false;
  std::size_t i = 0;
  for (dom::element item : a) {
    auto s = x.index(i++);
    out.emplace_back();
    if (!read_one(item, out.back())) return false;
  }
  return true;
}

bool read_string_map(context& x, dom::element e, k8s::label_set& out);
bool read_string_map(context& x, dom::element e,
                     std::vector<std::pair<std::string, std::string>>& out);
bool read_resource_map(context& x, dom::element e, k8s::resource_list& out);

}  // namespace detail

// A value read by one of context's typed reads, then stored into the member (which may be an
// optional of the value's type).
template <class V, bool (context::*Read)(dom::element, V&), auto... Path>
struct scalar : detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, detail::owner_of<Path...>& t) {
    V v{};
    if (!(x.*Read)(e, v)) return false;
    detail::at<Path...>(t) = std::move(v);
    return true;
  }
};

template <auto... Path>
using text = scalar<std::string, &context::read_string, Path...>;
template <auto... Path>
using boolean = scalar<bool, &context::read_bool, Path...>;
// A 32-bit integer.
template <auto... Path>
using int32 = scalar<std::int32_t, &context::read_int32, Path...>;
// A time (see context::read_time).
template <auto... Path>
using instant = scalar<preempt::timestamp, &context::read_time, Path...>;

// A list of strings.
template <auto... Path>
struct strings : detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, detail::owner_of<Path...>& t) {
    return detail::read_each(x, e, detail::at<Path...>(t), [&](dom::element v, std::string& out) {
      return x.read_string(v, out);
    });
  }
};

// A map of strings (labels, nodeSelector, matchLabels): merged key by key, null values skipped.
template <auto... Path>
struct string_map : detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, detail::owner_of<Path...>& t) {
    return detail::read_string_map(x, e, detail::at<Path...>(t));
  }
};

// A map of resource quantities (requests, limits, overhead, allocatable); the member may be an
// optional one, which a present map sets.
template <auto... Path>
struct resource_map : detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, detail::owner_of<Path...>& t) {
    auto& m = detail::at<Path...>(t);
    if constexpr (requires { m.emplace(); }) {
      if (!m) m.emplace();
      return detail::read_resource_map(x, e, *m);
    } else {
      return detail::read_resource_map(x, e, m);
    }
  }
};

// A nested object read with `Table` into the member (a plain struct, or an optional one that a
// present object creates and a later one merges into).
template <const auto& Table, auto... Path>
struct object : detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, detail::owner_of<Path...>& t) {
    auto& m = detail::at<Path...>(t);
    if constexpr (requires { m.emplace(); }) {
      if (!m) m.emplace();
      return read_fields(x, e, Table, *m);
    } else {
      return read_fields(x, e, Table, m);
    }
  }
};

// A nested object whose members belong to the same target (metadata, spec and status of one
// decoded object); null leaves the target as it was.
template <const auto& Table>
struct flatten {
  using entry = std::remove_cv_t<std::remove_extent_t<std::remove_reference_t<decltype(Table)>>>;
  using target = typename entry::target_type;
  static bool read(context& x, dom::element e, target& t) { return read_fields(x, e, Table, t); }
  static constexpr void (*on_null)(target&) = nullptr;
};

// A list of objects, each read with `Table` (a later list replaces an earlier one).
template <const auto& Table, auto... Path>
struct list : detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, detail::owner_of<Path...>& t) {
    return detail::read_each(x, e, detail::at<Path...>(t), [&](dom::element item, auto& out) {
      return read_fields(x, item, Table, out);
    });
  }
};

// A list whose elements `Check` validates after reading (a function returning k8s::result<void>
// for one element); a failed check is reported at the element.
template <const auto& Table, auto Check, auto... Path>
struct checked_list : detail::member_reader<Path...> {
  static bool read(context& x, dom::element e, detail::owner_of<Path...>& t) {
    return detail::read_each(x, e, detail::at<Path...>(t), [&](dom::element item, auto& out) {
      if (!read_fields(x, item, Table, out)) return false;
      auto valid = Check(out);
      return valid ? true : x.fail(valid.message());
    });
  }
};

// True when present and not null (a field whose content the tool does not model).
template <auto... Path>
struct presence : detail::member_reader<Path...> {
  static bool read(context&, dom::element, detail::owner_of<Path...>& t) {
    detail::at<Path...>(t) = true;
    return true;
  }
  static void reset(detail::owner_of<Path...>& t) { detail::at<Path...>(t) = false; }
  static constexpr void (*on_null)(detail::owner_of<Path...>&) = &reset;
};

}  // namespace whatif::decode

#endif  // PREEMPT_WHATIF_DECODER_HPP
