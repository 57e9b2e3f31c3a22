// preempt/detail/pod_views.hpp - two small forward views over a node's pods, used by the
// adaptation layer (preempt::pods_of) and by in_flight_view:
//   deref_view<R>          the elements of R, each turned into the pod it stands for by a
//                          projection (e.g. *e for a pointer or std::unique_ptr, e.get() for a
//                          std::reference_wrapper): a range of proxies read as pod lvalues
//   filter_view<R, Pred>   the elements of R for which pred(e) holds
// Both hold an lvalue range by pointer and an rvalue range by value; both are forward ranges of
// lvalue references (the library keeps pointers to the pods they yield). They replace
// std::views::transform/filter and range-v3's views, which cost far more to include.
//
// No allocation; no exceptions of their own; as thread-safe as the underlying range's iteration.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_POD_VIEWS_HPP
#define PREEMPT_DETAIL_POD_VIEWS_HPP

#include <concepts>
#include <cstddef>
#include <iterator>
#include <memory>
#include <ranges>
#include <type_traits>
#include <utility>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// Holds a range: by pointer when given an lvalue, by value (moved in) when given an rvalue.
template <class R>
class range_holder {
 public:
  using range_type = std::remove_cvref_t<R>;
  constexpr explicit range_holder(R&& r)
    requires std::is_lvalue_reference_v<R>
      : r_(std::addressof(r)) {}
  constexpr explicit range_holder(R&& r)
    requires(!std::is_lvalue_reference_v<R>)
      : r_(std::move(r)) {}
  constexpr auto& get() const noexcept {
    if constexpr (std::is_lvalue_reference_v<R>)
      return *r_;
    else
      return r_;
  }

 private:
  std::conditional_t<std::is_lvalue_reference_v<R>, std::remove_reference_t<R>*,
                     const std::remove_cvref_t<R>>
      r_;
};

template <class R>
using holder_iterator_t =
    decltype(std::ranges::begin(std::declval<const range_holder<R>&>().get()));
template <class R>
using holder_sentinel_t = decltype(std::ranges::end(std::declval<const range_holder<R>&>().get()));

// The end of a wrapped range (a distinct type even when the underlying range is common).
template <class S>
struct wrapped_sentinel {
  S end;
};

template <class R, class Proj>
class deref_view {
  using base_iterator = holder_iterator_t<R>;
  using base_sentinel = holder_sentinel_t<R>;

 public:
  using reference = decltype(std::declval<const Proj&>()(*std::declval<base_iterator&>()));
  static_assert(std::is_lvalue_reference_v<reference>, "the projection must yield an lvalue");

  class iterator {
   public:
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::remove_cvref_t<reference>;
    using difference_type = std::iter_difference_t<base_iterator>;

    iterator() = default;
    constexpr iterator(base_iterator it, const Proj* proj) : it_(std::move(it)), proj_(proj) {}
    constexpr reference operator*() const { return (*proj_)(*it_); }
    constexpr auto operator->() const { return std::addressof(**this); }
    constexpr iterator& operator++() {
      ++it_;
      return *this;
    }
    constexpr iterator operator++(int) {
      iterator t = *this;
      ++it_;
      return t;
    }
    friend constexpr bool operator==(const iterator& a, const iterator& b) {
      return a.it_ == b.it_;
    }
    friend constexpr bool operator==(const iterator& a, const wrapped_sentinel<base_sentinel>& s) {
      return a.it_ == s.end;
    }

   private:
    base_iterator it_{};
    const Proj* proj_ = nullptr;
  };

  constexpr deref_view(R&& r, Proj proj) : base_(std::forward<R>(r)), proj_(std::move(proj)) {}
  deref_view(const deref_view&) = delete;  // iterators point at proj_
  deref_view& operator=(const deref_view&) = delete;
  constexpr iterator begin() const { return iterator(std::ranges::begin(base_.get()), &proj_); }
  // A common range when the underlying one is (std::distance works on it).
  constexpr auto end() const {
    if constexpr (std::same_as<base_iterator, base_sentinel>)
      return iterator(std::ranges::end(base_.get()), &proj_);
    else
      return wrapped_sentinel<base_sentinel>{std::ranges::end(base_.get())};
  }

 private:
  range_holder<R> base_;
  Proj proj_;
};

template <class R, class Pred>
class filter_view {
  using base_iterator = holder_iterator_t<R>;
  using base_sentinel = holder_sentinel_t<R>;

 public:
  using reference = std::iter_reference_t<base_iterator>;

  class iterator {
   public:
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::iter_value_t<base_iterator>;
    using difference_type = std::iter_difference_t<base_iterator>;

    iterator() = default;
    constexpr iterator(base_iterator it, const filter_view* v) : it_(std::move(it)), v_(v) {
      skip();
    }
    constexpr reference operator*() const { return *it_; }
    constexpr auto operator->() const { return std::addressof(**this); }
    constexpr iterator& operator++() {
      ++it_;
      skip();
      return *this;
    }
    constexpr iterator operator++(int) {
      iterator t = *this;
      ++*this;
      return t;
    }
    friend constexpr bool operator==(const iterator& a, const iterator& b) {
      return a.it_ == b.it_;
    }
    friend constexpr bool operator==(const iterator& a, const wrapped_sentinel<base_sentinel>& s) {
      return a.it_ == s.end;
    }

   private:
    constexpr void skip() {
      const auto end = std::ranges::end(v_->base_.get());
      while (!(it_ == end) && !v_->pred_(*it_)) ++it_;
    }
    base_iterator it_{};
    const filter_view* v_ = nullptr;
  };

  constexpr filter_view(R&& r, Pred pred) : base_(std::forward<R>(r)), pred_(std::move(pred)) {}
  filter_view(const filter_view&) = delete;  // iterators point at the view
  filter_view& operator=(const filter_view&) = delete;
  constexpr iterator begin() const { return iterator(std::ranges::begin(base_.get()), this); }
  // A common range when the underlying one is (std::distance works on it).
  constexpr auto end() const {
    if constexpr (std::same_as<base_iterator, base_sentinel>)
      return iterator(std::ranges::end(base_.get()), this);
    else
      return wrapped_sentinel<base_sentinel>{std::ranges::end(base_.get())};
  }

 private:
  range_holder<R> base_;
  Pred pred_;
};

template <class R, class Proj>
deref_view(R&&, Proj) -> deref_view<R, Proj>;
template <class R, class Pred>
filter_view(R&&, Pred) -> filter_view<R, Pred>;

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_POD_VIEWS_HPP
