// preempt/victim_grouping.hpp - how the evaluator groups victims: a strategy a grouping layer
// supplies (the pod groups of preempt/workload/unit_grouping.hpp), none by default.
//
// A type G models victim_grouping<G, P> when G::groups_victims says whether victims are grouped
// and g.priority_of() is step 1's priority of a pod on the nominated node (a callable
// const P& -> std::int32_t). no_victim_grouping groups nothing: every pod is a victim of its own,
// select_victims decides on each node, and the rejection index, foreseen rejections and the
// branch and bound apply. A grouping with groups_victims = true also answers, for one decision:
//   g.prepare(cluster, now, workers)    after step 1: what its selections read (e.g. the victim
//                                       units), and scratch for `workers` workers
//   g.prepare_workers(budget_count)     before a parallel dry run: every worker's scratch as large
//                                       as the largest any worker has needed
//   g.select(w, preemptor, x, cluster, state, budgets, nominated, policy)
//                                       the victims on node x on worker w: a victim_selection<P>
//                                       (its victims in the worker's scratch until its next node)
// victim_grouping_for<Groups, P> is the customization point of evaluator::evaluate(preemptor,
// cluster, groups, ...): its `make(groups, storage)` returns the grouping for `groups`, keeping
// its scratch in the evaluator's victim_grouping_storage. Here it is defined for no type: the
// header that defines it (workload/unit_grouping.hpp for a workload::group_set) enables the call.
//
// victim_grouping_storage owns one object of a type the evaluator does not know, made on first use
// (one allocation) and kept until the storage is destroyed or asked for another type. No
// allocation otherwise; no exceptions of its own. Thread-safety: one user at a time.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_VICTIM_GROUPING_HPP
#define PREEMPT_VICTIM_GROUPING_HPP

#include <concepts>
#include <cstdint>
#include <utility>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

template <class G, class P>
concept victim_grouping = requires(const G& g, const P& p) {
  { G::groups_victims } -> std::convertible_to<bool>;
  { g.priority_of()(p) } -> std::convertible_to<std::int32_t>;
};

// Every pod a victim of its own, with its own priority.
struct no_victim_grouping {
  static constexpr bool groups_victims = false;
  static constexpr detail::priority_of_fn priority_of() noexcept { return {}; }
};

// Where a grouping keeps its scratch between decisions: one object of type T, made by get<T>().
class victim_grouping_storage {
 public:
  victim_grouping_storage() = default;
  victim_grouping_storage(victim_grouping_storage&& other) noexcept
      : object_(std::exchange(other.object_, nullptr)),
        destroy_(std::exchange(other.destroy_, nullptr)),
        type_(std::exchange(other.type_, nullptr)) {}
  victim_grouping_storage& operator=(victim_grouping_storage&& other) noexcept {
    if (this != &other) {
      reset();
      object_ = std::exchange(other.object_, nullptr);
      destroy_ = std::exchange(other.destroy_, nullptr);
      type_ = std::exchange(other.type_, nullptr);
    }
    return *this;
  }
  ~victim_grouping_storage() { reset(); }

  // The T held, value-initialized on first use (or after another type was held).
  template <class T>
  T& get() {
    if (object_ == nullptr || type_ != &type_tag<T>::id) {
      reset();
      object_ = new T();
      destroy_ = &destroy<T>;
      type_ = &type_tag<T>::id;
    }
    return *static_cast<T*>(object_);
  }

 private:
  // A type's identity without RTTI: the address of a mutable variable of its own (function
  // addresses may be folded by a linker's identical-code folding, constants merged).
  template <class T>
  struct type_tag {
    static inline char id = 0;
  };
  template <class T>
  static void destroy(void* object) noexcept {
    delete static_cast<T*>(object);
  }
  void reset() noexcept {
    if (object_ != nullptr) destroy_(object_);
    object_ = nullptr;
    destroy_ = nullptr;
    type_ = nullptr;
  }

  void* object_ = nullptr;
  void (*destroy_)(void*) noexcept = nullptr;
  const char* type_ = nullptr;
};

// The customization point: specialize with `static G make(const Groups&,
// victim_grouping_storage&)`, G a victim_grouping<G, P> whose groups_victims is true.
template <class Groups, class P>
struct victim_grouping_for {};

// Whether evaluator::evaluate(preemptor, cluster, groups, ...) takes a Groups: some header defines
// its grouping.
template <class Groups, class P>
concept victim_groups = requires(const Groups& groups, victim_grouping_storage& storage) {
  { victim_grouping_for<Groups, P>::make(groups, storage) } -> victim_grouping<P>;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_VICTIM_GROUPING_HPP
