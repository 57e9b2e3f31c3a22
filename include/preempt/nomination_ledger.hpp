// preempt/nomination_ledger.hpp - which pending pods are nominated to which node (upstream's
// nominator, pkg/scheduler/backend/queue/nominator.go).
//
// The ledger maps node → nominated pods (in nomination order) and pod → node. It stores pointers
// to the caller's pending pods, which must stay alive while nominated. Operations:
//   nominate(pod, node)        nominate with upstream's "override" mode (replaces any earlier one)
//   add_from_object(pod, nnn)  upstream's "noop" mode: take the node from the pod object's own
//                              status.nominatedNodeName (none ⇒ the nomination is cleared)
//   update(pod, old_nnn, new_nnn)  the pod object changed; when neither version carries a
//                              nominated node but the ledger holds one, it is kept (the API may
//                              lag behind the in-memory nomination), else as add_from_object
//   remove(uid)                the pod was bound or deleted
//   clear_lower_priority(node, priority, out)  drop and report the nominations of strictly
//                              lower-priority pods on a node (done when a preemptor takes it)
//   reader()                   a view that holds the ledger's shared lock while it lives; its
//                              nominated_to(node) gives the nominated pods of a node (it models
//                              preempt::nominations_of: pass it, not the ledger, to evaluate)
//   nominated_to_unlocked(node)  the same without the lock, for single-threaded use
// The evaluation reads nominated_to() for its two-pass fit (RunFilterPluginsWithNominatedPods),
// which itself keeps only the pods of priority >= the preemptor's and excludes the preemptor.
// The ledger itself does not model nominations_of: passing it where its reader is expected does
// not compile.
//
// Thread-safety: every member takes the ledger's lock (a std::shared_mutex by default, a
// preempt::null_mutex under PREEMPT_NO_THREADS; pass preempt::null_mutex for single-threaded
// use). A reader's spans are views into the ledger, valid while the
// reader lives. A thread that holds a reader must not call the ledger (every member locks it:
// a second lock on the same thread is undefined behaviour, a deadlock at best): with checks on
// (PREEMPT_CHECK_LEDGER_READERS, by default unless NDEBUG, PREEMPT_NO_CHECKS or
// PREEMPT_NO_THREADS) each member asserts that the calling thread holds none of this ledger's
// readers, through a thread-local list of the ledgers whose readers it holds. Complexity: O(1)
// expected per pod operation plus O(k) for k pods on the node. Allocation: none after reserve(pods,
// nodes, per_node), through the given allocator. No exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_NOMINATION_LEDGER_HPP
#define PREEMPT_NOMINATION_LEDGER_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/detail/flat_map.hpp"
#include "preempt/detail/lock.hpp"
#include "preempt/pod.hpp"

// Whether the ledger checks that its calling thread holds none of its readers.
#if !defined(PREEMPT_CHECK_LEDGER_READERS)
#if defined(NDEBUG) || defined(PREEMPT_NO_CHECKS) || defined(PREEMPT_NO_THREADS)
#define PREEMPT_CHECK_LEDGER_READERS 0
#else
#define PREEMPT_CHECK_LEDGER_READERS 1
#endif
#endif

PREEMPT_NAMESPACE_BEGIN

namespace detail {
#if PREEMPT_CHECK_LEDGER_READERS
// The ledgers whose readers the current thread holds (the first `capacity` are tracked).
struct held_ledger_readers {
  static constexpr std::size_t capacity = 8;
  const void* ledgers[capacity] = {};
  std::size_t count = 0;

  bool holds(const void* ledger) const noexcept {
    for (std::size_t i = 0; i < count && i < capacity; ++i)
      if (ledgers[i] == ledger) return true;
    return false;
  }
  void add(const void* ledger) noexcept {
    if (count < capacity) ledgers[count] = ledger;
    ++count;
  }
  void remove(const void* ledger) noexcept {
    const std::size_t tracked = count < capacity ? count : capacity;
    for (std::size_t i = tracked; i-- > 0;)
      if (ledgers[i] == ledger) {
        ledgers[i] = ledgers[tracked - 1];
        --count;
        return;
      }
    if (count > capacity) --count;  // an untracked reader
  }
};
inline thread_local held_ledger_readers this_thread_ledger_readers;
#endif
}  // namespace detail

template <pod P, class Mutex = detail::default_shared_mutex,
          class Allocator = std::allocator<const P*>>
class nomination_ledger {
 public:
  using uid_type = pod_uid_t<P>;
  using pod_list = std::vector<const P*, Allocator>;
  // Read through reader(): the ledger itself is no nominations_of (see detail::nominations_owner).
  static constexpr bool owns_nominations = true;

  explicit nomination_ledger(std::size_t nodes = 0, const Allocator& alloc = Allocator())
      : alloc_(alloc),
        by_node_(nodes, pod_list(alloc), bucket_alloc(alloc)),
        by_pod_(pod_map_alloc(alloc)) {}

  // Movable. Moving a ledger while another thread uses it, or while a reader of it lives, is the
  // caller's bug. The moved-to ledger has a fresh lock; the moved-from one is empty and usable.
  nomination_ledger(nomination_ledger&& other) noexcept
      : alloc_(other.alloc_),
        by_node_(std::move(other.by_node_)),
        by_pod_(std::move(other.by_pod_)) {
    other.by_node_.clear();
    other.by_pod_.clear();
  }
  nomination_ledger& operator=(nomination_ledger&& other) noexcept {
    if (this != &other) {
      by_node_ = std::move(other.by_node_);
      by_pod_ = std::move(other.by_pod_);
      other.by_node_.clear();
      other.by_pod_.clear();
    }
    return *this;
  }
  nomination_ledger(const nomination_ledger&) = delete;
  nomination_ledger& operator=(const nomination_ledger&) = delete;

  // Makes room for `pods` nominated pods over `nodes` nodes, `per_node` on any one node.
  void reserve(std::size_t pods, std::size_t nodes, std::size_t per_node) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    grow_nodes(nodes);
    for (pod_list& l : by_node_) l.reserve(per_node);
    by_pod_.reserve(pods);
  }

  // Upstream "override": nominate `pod` to `node`, replacing any earlier nomination.
  void nominate(const P& pod, std::size_t node) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    erase_locked(::preempt::uid_of(pod));
    add_locked(pod, node);
  }

  // Upstream "noop": follow the pod object's own nominated node; none clears the nomination.
  void add_from_object(const P& pod, std::optional<std::size_t> object_nominated_node) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    erase_locked(::preempt::uid_of(pod));
    if (object_nominated_node) add_locked(pod, *object_nominated_node);
  }

  // The pod object changed (or was re-read). Keeps the in-memory nomination when neither the old
  // nor the new object carries one.
  void update(const P& pod, std::optional<std::size_t> old_object_nominated_node,
              std::optional<std::size_t> new_object_nominated_node) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    std::optional<std::size_t> target = new_object_nominated_node;
    if (!old_object_nominated_node && !new_object_nominated_node)
      if (const std::size_t* held = by_pod_.find(::preempt::uid_of(pod))) target = *held;
    erase_locked(::preempt::uid_of(pod));
    if (target) add_locked(pod, *target);
  }

  // Forgets the pod's nomination; false if it had none.
  bool remove(const uid_type& uid) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    return erase_locked(uid);
  }

  std::optional<std::size_t> node_of(const uid_type& uid) const {
    check_no_reader();
    detail::shared_guard lock(mutex_);
    const std::size_t* node = by_pod_.find(uid);
    return node ? std::optional<std::size_t>(*node) : std::nullopt;
  }

  std::size_t size() const {
    check_no_reader();
    detail::shared_guard lock(mutex_);
    return by_pod_.size();
  }

  // Removes every pod nominated to `node` with priority strictly below `priority`, appending them
  // to `out`; returns how many. A container of uid_type receives the pods' uids: copies, which
  // stay valid once the pods are freed (a pod the ledger no longer holds may be freed at once by
  // its owner). Any other container receives pointers to the pods, valid only as long as the
  // caller keeps those pods alive.
  template <class Out>
  std::size_t clear_lower_priority(std::size_t node, std::int32_t priority, Out& out) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    if (node >= by_node_.size()) return 0;
    pod_list& l = by_node_[node];
    std::size_t cleared = 0;
    std::erase_if(l, [&](const P* p) {
      if (priority_of(*p) >= priority) return false;
      by_pod_.erase(::preempt::uid_of(*p));
      if constexpr (std::is_same_v<typename Out::value_type, uid_type>)
        out.push_back(::preempt::uid_of(*p));
      else
        out.push_back(p);
      ++cleared;
      return true;
    });
    return cleared;
  }

  // The pods nominated to `node`, in nomination order, without the lock: for single-threaded use
  // (see reader()).
  std::span<const P* const> nominated_to_unlocked(std::size_t node) const noexcept {
    if (node >= by_node_.size()) return {};
    return by_node_[node];
  }

  // A view that holds the ledger's shared lock while it lives; models nominations_of<P>. The
  // thread that holds it must not call the ledger until it is gone (see the header comment).
  class reader_view {
   public:
    explicit reader_view(const nomination_ledger& l) : ledger_(l.track_reader()), lock_(l.mutex_) {}
    reader_view(reader_view&& other) noexcept
        : ledger_(other.ledger_), lock_(std::move(other.lock_)) {
      other.ledger_ = nullptr;
    }
    reader_view(const reader_view&) = delete;
    reader_view& operator=(const reader_view&) = delete;
    reader_view& operator=(reader_view&&) = delete;
    ~reader_view() {
      if (ledger_ != nullptr) ledger_->untrack_reader();
    }

    std::span<const P* const> nominated_to(std::size_t node) const noexcept {
      return ledger_->nominated_to_unlocked(node);
    }

   private:
    const nomination_ledger* ledger_;
    detail::shared_guard<Mutex> lock_;
  };
  reader_view reader() const { return reader_view(*this); }

 private:
  using bucket_alloc = typename std::allocator_traits<Allocator>::template rebind_alloc<pod_list>;
  using pod_map_alloc = typename std::allocator_traits<Allocator>::template rebind_alloc<
      std::pair<uid_type, std::size_t>>;

  // Asserts (with PREEMPT_CHECK_LEDGER_READERS) that this thread holds none of this ledger's
  // readers: locking the ledger again would be a recursive lock.
  void check_no_reader() const noexcept {
#if PREEMPT_CHECK_LEDGER_READERS
    PREEMPT_ASSERT(!detail::this_thread_ledger_readers.holds(this),
                   "nomination_ledger: called by a thread that holds its reader (a recursive "
                   "lock); let the reader go first");
#endif
  }
  const nomination_ledger* track_reader() const noexcept {
    check_no_reader();
#if PREEMPT_CHECK_LEDGER_READERS
    detail::this_thread_ledger_readers.add(this);
#endif
    return this;
  }
  void untrack_reader() const noexcept {
#if PREEMPT_CHECK_LEDGER_READERS
    detail::this_thread_ledger_readers.remove(this);
#endif
  }

  void grow_nodes(std::size_t nodes) {
    if (by_node_.size() < nodes) by_node_.resize(nodes, pod_list(alloc_));
  }

  void add_locked(const P& pod, std::size_t node) {
    grow_nodes(node + 1);
    by_node_[node].push_back(&pod);
    by_pod_.insert_or_assign(::preempt::uid_of(pod), node);
  }

  bool erase_locked(const uid_type& uid) {
    const std::size_t* node = by_pod_.find(uid);
    if (node == nullptr) return false;
    pod_list& l = by_node_[*node];
    std::erase_if(l, [&](const P* p) { return ::preempt::uid_of(*p) == uid; });
    by_pod_.erase(uid);
    return true;
  }

  mutable Mutex mutex_;
  Allocator alloc_;
  std::vector<pod_list, bucket_alloc> by_node_;
  detail::flat_map<uid_type, std::size_t, pod_map_alloc> by_pod_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_NOMINATION_LEDGER_HPP
