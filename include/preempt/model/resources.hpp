// preempt/model/resources.hpp - a multi-dimensional resource amount, and the names of its
// dimensions.
//
// `resource_vector` holds one std::int64_t per dimension: cpu (millicores), memory (bytes), pod
// slots, ephemeral storage (bytes), then any number of extended resources (nvidia.com/gpu, ...),
// numbered by a `resource_names` registry. Dimensions past size() read as zero. Four dimensions
// live inline (the vector is 40 bytes, 36 of them data); more spill to the heap once, when the
// vector is built, so arithmetic on vectors of an established size never allocates. data() always
// points at inline_dimensions readable amounts or more, zero past size(), so loops over the
// standard dimensions need no bounds check.
//
// `resource_names` maps extended resource names to dimensions and keeps the upstream reason text
// for each dimension ("Insufficient cpu", "Too many pods", "Insufficient example.com/foo"), with
// stable addresses, so that a `status` can refer to it.
//
// Allocation: resource_vector allocates only above four dimensions; resource_names allocates when
// a name is registered. No exceptions of their own (allocation failure aside). Not synchronized:
// share between threads only for reading.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_RESOURCES_HPP
#define PREEMPT_MODEL_RESOURCES_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

// The standard dimensions.
namespace resource {
inline constexpr std::size_t cpu = 0;                // millicores
inline constexpr std::size_t memory = 1;             // bytes
inline constexpr std::size_t pods = 2;               // pod slots
inline constexpr std::size_t ephemeral_storage = 3;  // bytes
inline constexpr std::size_t first_extended = 4;
}  // namespace resource

class resource_vector {
 public:
  static constexpr std::size_t inline_dimensions = 4;

  constexpr resource_vector() noexcept {}
  // Amounts for the first dimensions, in order: cpu, memory, pods, ephemeral storage, extended.
  resource_vector(std::initializer_list<std::int64_t> amounts) {
    resize(amounts.size());
    std::copy(amounts.begin(), amounts.end(), data());
  }
  resource_vector(const resource_vector& other) { *this = other; }
  resource_vector(resource_vector&& other) noexcept { *this = std::move(other); }
  resource_vector& operator=(const resource_vector& other) {
    if (this != &other) {
      resize(other.size_);
      std::copy(other.data(), other.data() + other.size_, data());
    }
    return *this;
  }
  resource_vector& operator=(resource_vector&& other) noexcept {
    if (this == &other) return *this;
    release();
    if (other.on_heap())
      heap_ = other.heap_;  // the amounts move with their block
    else
      small_ = other.small_;
    size_ = std::exchange(other.size_, 0u);
    other.small_ = {};  // empty, and zero past its size again
    return *this;
  }
  ~resource_vector() { release(); }

  std::size_t size() const noexcept { return size_; }
  // The amounts of dimensions [0, size()), followed by zeros up to at least inline_dimensions.
  const std::int64_t* data() const noexcept { return on_heap() ? heap_.amounts : small_.data(); }
  std::int64_t* data() noexcept { return on_heap() ? heap_.amounts : small_.data(); }

  // The amount in dimension i (zero past size()).
  std::int64_t operator[](std::size_t i) const noexcept { return i < size_ ? data()[i] : 0; }

  // Sets dimension i, growing the vector (with zeros) when needed.
  void set(std::size_t i, std::int64_t amount) {
    if (i >= size_) resize(i + 1);
    data()[i] = amount;
  }

  // Adds `other` in the dimensions this vector has; dimensions of `other` beyond size() are
  // ignored. Never allocates.
  // Inlined: the hot loops call add and subtract once per pod or node.
  [[gnu::always_inline]] void add(const resource_vector& other) noexcept {
    if (size_ == inline_dimensions && other.size_ <= inline_dimensions) {
      // The common size, unrolled; both inline, and `other` reads as zero past its size.
      for (std::size_t i = 0; i < inline_dimensions; ++i) small_[i] += other.small_[i];
      return;
    }
    const std::size_t n = std::min(size_, other.size_);
    std::int64_t* to = data();
    const std::int64_t* from = other.data();
    for (std::size_t i = 0; i < n; ++i) to[i] += from[i];
  }
  // Subtracts `other`, like add.
  [[gnu::always_inline]] void subtract(const resource_vector& other) noexcept {
    if (size_ == inline_dimensions && other.size_ <= inline_dimensions) {
      // The common size, unrolled; both inline, and `other` reads as zero past its size.
      for (std::size_t i = 0; i < inline_dimensions; ++i) small_[i] -= other.small_[i];
      return;
    }
    const std::size_t n = std::min(size_, other.size_);
    std::int64_t* to = data();
    const std::int64_t* from = other.data();
    for (std::size_t i = 0; i < n; ++i) to[i] -= from[i];
  }

  // Resizes to n dimensions; new dimensions are zero, and so are dropped ones (everything past
  // size() reads as zero). Allocates only when n exceeds both inline_dimensions and the capacity
  // of the block the amounts are in; a size of inline_dimensions or less frees the block.
  void resize(std::size_t n) {
    if (n > inline_dimensions) {
      if (!on_heap() || n > heap_.capacity) {
        const std::int64_t* old = data();
        auto* bigger = new std::int64_t[n]();  // value-initialized: zeros
        std::copy(old, old + size_, bigger);
        release();
        heap_ = {bigger, n};
      }
      std::int64_t* a = heap_.amounts;
      for (std::size_t i = size_; i < n; ++i) a[i] = 0;
      for (std::size_t i = n; i < size_; ++i) a[i] = 0;
    } else if (on_heap()) {  // back inline
      std::array<std::int64_t, inline_dimensions> kept{};
      std::copy(heap_.amounts, heap_.amounts + n, kept.data());
      release();
      small_ = kept;
    } else {
      for (std::size_t i = n; i < size_; ++i) small_[i] = 0;
    }
    size_ = static_cast<std::uint32_t>(n);
  }

  friend bool operator==(const resource_vector& a, const resource_vector& b) noexcept {
    const std::size_t n = std::max(a.size_, b.size_);
    for (std::size_t i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  struct block {
    std::int64_t* amounts;
    std::size_t capacity;
  };
  // The amounts live inline up to inline_dimensions, in a heap block above.
  bool on_heap() const noexcept { return size_ > inline_dimensions; }
  // Frees the block, if any; the caller sets the amounts and size_ right after.
  void release() noexcept {
    if (on_heap()) delete[] heap_.amounts;
  }

  // 36 bytes of data, no pointer into itself: the tail padding (sizeof is 40) may hold an owner's
  // members ([[no_unique_address]], as resource_pod does), and a move is a plain copy.
  union {
    std::array<std::int64_t, inline_dimensions> small_{};
    block heap_;
  };
  std::uint32_t size_ = 0;
};

// Names of the dimensions and the reason text a failed fit reports for each.
class resource_names {
 public:
  resource_names() = default;
  resource_names(const resource_names&) = delete;  // statuses point into it
  resource_names& operator=(const resource_names&) = delete;

  // The dimension of a resource name, registering extended resources on first use.
  std::size_t dimension(std::string_view name) {
    if (const std::size_t d = find(name); d != npos) return d;
    extended_.emplace_back(name);
    reasons_.emplace_back("Insufficient " + std::string(name));
    return resource::first_extended + extended_.size() - 1;
  }

  // The dimension of a known name, or npos.
  std::size_t find(std::string_view name) const noexcept {
    for (std::size_t d = 0; d < resource::first_extended; ++d)
      if (standard_names[d] == name) return d;
    for (std::size_t i = 0; i < extended_.size(); ++i)
      if (extended_[i] == name) return resource::first_extended + i;
    return npos;
  }

  std::string_view name(std::size_t d) const noexcept {
    if (d < resource::first_extended) return standard_names[d];
    const std::size_t i = d - resource::first_extended;
    return i < extended_.size() ? std::string_view(extended_[i]) : std::string_view("unknown");
  }

  // How many dimensions are known (standard ones included).
  std::size_t size() const noexcept { return resource::first_extended + extended_.size(); }

  // Upstream's reason for a shortage in dimension d.
  std::string_view insufficient(std::size_t d) const noexcept {
    return insufficient_reason(this, d);
  }

  // Same, for callers that may have no registry (extended dimensions then get a generic text).
  static constexpr std::string_view insufficient_reason(const resource_names* names,
                                                        std::size_t d) noexcept {
    constexpr std::string_view standard[] = {"Insufficient cpu", "Insufficient memory",
                                             "Too many pods", "Insufficient ephemeral-storage"};
    if (d < resource::first_extended) return standard[d];
    const std::size_t i = d - resource::first_extended;
    if (names != nullptr && i < names->reasons_.size()) return names->reasons_[i];
    return "Insufficient extended resource";
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  static constexpr std::string_view standard_names[] = {"cpu", "memory", "pods",
                                                        "ephemeral-storage"};
  std::deque<std::string> extended_;
  std::deque<std::string> reasons_;  // deque: stable addresses as names are added
};

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_RESOURCES_HPP
