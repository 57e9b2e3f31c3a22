// preempt/nomination_ledger.hpp - which pending pods are nominated to which node (upstream's
// nominator, pkg/scheduler/backend/queue/nominator.go).
//
// The ledger maps node → nominated pods (in nomination order) and pod → node. It keeps its own
// copy of each nominated pod (P must be copyable; the caller may replace or free its pod objects at
// any time: update() refreshes the copy), and it has a fixed number of nodes (constructor,
// add_node, resize_nodes, reserve); a node index out of that range is a contract failure.
// Its members follow upstream's modes (nominate: override; add_from_object and update: noop),
// plus node removal and renumbering; each is listed at the class.
// Thread-safety: every member takes the ledger's lock (a std::shared_mutex by default,
// preempt::null_mutex under PREEMPT_NO_THREADS or when passed). A thread that holds a reader must
// not call the ledger (a recursive lock): unless PREEMPT_NO_CHECKS or PREEMPT_NO_THREADS, every
// member checks that the calling thread holds none of this ledger's readers (a thread-local list
// of at most a few entries; PREEMPT_CHECK_LEDGER_READERS=0 turns it off). A dispatcher using the
// ledger must be destroyed first (detail/users.hpp). Complexity: O(1) expected per pod operation
// plus O(k) for k pods on the node; node removal O(nominated pods + nodes). Allocation: none after
// reserve(pods, nodes, per_node) (a pod's copy reuses its slot's), except remove/renumber_nodes.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_NOMINATION_LEDGER_HPP
#define PREEMPT_NOMINATION_LEDGER_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/detail/flat_map.hpp"
#include "preempt/detail/lock.hpp"
#include "preempt/detail/requirements.hpp"
#include "preempt/detail/users.hpp"
#include "preempt/nominations.hpp"
#include "preempt/pod.hpp"

// Whether the ledger checks that its calling thread holds none of its readers (in every build type:
// the check costs a thread-local load when the thread holds no reader).
#if !defined(PREEMPT_CHECK_LEDGER_READERS)
#if defined(PREEMPT_NO_CHECKS) || defined(PREEMPT_NO_THREADS)
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

// A node as a nomination ledger knows it, whatever later renumbering does to its index: the
// ledger's index_of(key) finds it, or says that it was removed. `hint` is its index when the key
// was taken (found in O(1) while the nodes keep their indices).
struct node_key {
  std::uint64_t id = 0;  // 0: no node
  std::size_t hint = 0;

  friend constexpr bool operator==(const node_key& a, const node_key& b) noexcept {
    return a.id == b.id;
  }
};

template <class P, class Mutex = detail::default_shared_mutex,
          class Allocator = std::allocator<const P*>>
class nomination_ledger;

// A pod type that does not model preempt::pod: the reasons, each once (detail/requirements.hpp).
template <class P, class Mutex, class Allocator>
  requires(!pod<P>)
class nomination_ledger<P, Mutex, Allocator> {
  using requirements_checked = detail::checked<detail::explain_pod<P>()>;

 public:
  static constexpr bool owns_nominations = false;
  template <class... A>
  explicit nomination_ledger(A&&...) noexcept {}
  template <class... A>
  void nominate(A&&...) noexcept {}
  no_nominations reader() const noexcept { return {}; }
};

// The ledger's members:
//   nominate(pod, node)        upstream's "override" mode (replaces any earlier nomination)
//   add_from_object(pod, nnn)  upstream's "noop" mode: the pod object's own nominatedNodeName
//                              (none ⇒ the nomination is cleared)
//   update(pod, old_nnn, new_nnn)  the pod object changed; when neither version carries a
//                              nominated node but the ledger holds one, it is kept (the API may
//                              lag behind the in-memory nomination), else as add_from_object
//   remove(uid)                the pod was bound or deleted
//   clear_lower_priority(node, priority, out)  drop and report the nominations of strictly
//                              lower-priority pods on a node (done when a preemptor takes it)
//   remove_node(node, out), renumber_nodes(map, count, out)  the cluster lost or renumbered
//                              nodes: their nominations go, and are reported, with the node
//   key_of(node), index_of(key)  a node_key names a node whatever renumbering does to its index
//   reader()                   a view holding the ledger's shared lock; nominated_to(node) gives a
//                              node's nominated pods (it models nominations_of: pass it, not the
//                              ledger, to evaluate); nominated_to_unlocked(node) is the same
//                              without the lock, for single-threaded use
template <class P, class Mutex, class Allocator>
  requires pod<P>
class nomination_ledger<P, Mutex, Allocator> {
  static_assert(std::is_copy_constructible_v<P>,
                "nomination_ledger: the ledger keeps a copy of each nominated pod, so the pod type "
                "must be copy-constructible");

 public:
  using uid_type = pod_uid_t<P>;
  using pod_list = std::vector<const P*, Allocator>;
  // Read through reader(): the ledger itself is no nominations_of (see detail::nominations_owner).
  static constexpr bool owns_nominations = true;
  // In renumber_nodes' map: the node is removed.
  static constexpr std::size_t removed = static_cast<std::size_t>(-1);

  explicit nomination_ledger(std::size_t nodes = 0, const Allocator& alloc = Allocator())
      : alloc_(alloc),
        by_node_(bucket_alloc(alloc)),
        keys_(key_alloc(alloc)),
        slots_(slot_alloc(alloc)),
        free_(index_alloc(alloc)),
        by_pod_(pod_map_alloc(alloc)) {
    grow_nodes(nodes);
  }

  // Movable. Moving a ledger while another thread uses it, or while a reader of it lives, is the
  // caller's bug; moving one a dispatcher uses is a contract failure. The moved-to ledger has a
  // fresh lock; the moved-from one is empty, without nodes, and usable.
  nomination_ledger(nomination_ledger&& other) noexcept
      : alloc_(other.alloc_),
        by_node_(std::move(other.by_node_)),
        keys_(std::move(other.keys_)),
        next_key_(other.next_key_),
        slots_(std::move(other.slots_)),
        free_(std::move(other.free_)),
        by_pod_(std::move(other.by_pod_)) {
    PREEMPT_ASSERT(other.users_.none(), "nomination_ledger: moved while a dispatcher uses it");
    other.clear_moved();
  }
  nomination_ledger& operator=(nomination_ledger&& other) noexcept {
    PREEMPT_ASSERT(users_.none() && other.users_.none(),
                   "nomination_ledger: moved while a dispatcher uses it");
    if (this != &other) {
      by_node_ = std::move(other.by_node_);
      keys_ = std::move(other.keys_);
      next_key_ = other.next_key_;
      slots_ = std::move(other.slots_);
      free_ = std::move(other.free_);
      by_pod_ = std::move(other.by_pod_);
      other.clear_moved();
    }
    return *this;
  }
  nomination_ledger(const nomination_ledger&) = delete;
  nomination_ledger& operator=(const nomination_ledger&) = delete;
  ~nomination_ledger() {
    PREEMPT_ASSERT(users_.none(),
                   "nomination_ledger: destroyed while a dispatcher still uses it; declare the "
                   "ledger before the dispatcher, so that the dispatcher is destroyed first");
  }

  // Makes room for `pods` nominated pods over at least `nodes` nodes (the ledger grows to that
  // many), `per_node` on any one node.
  void reserve(std::size_t pods, std::size_t nodes, std::size_t per_node) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    grow_nodes(nodes);
    for (pod_list& l : by_node_) l.reserve(per_node);
    by_pod_.reserve(pods);
    while (slots_.size() < pods) {
      slots_.emplace_back();
      free_.reserve(slots_.size());
      free_.push_back(slots_.size() - 1);
    }
  }

  // --- nodes --------------------------------------------------------------------------------

  std::size_t node_count() const {
    check_no_reader();
    detail::shared_guard lock(mutex_);
    return by_node_.size();
  }

  // Appends a node without nominations; its index.
  std::size_t add_node() {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    grow_nodes(by_node_.size() + 1);
    return by_node_.size() - 1;
  }

  // Grows the ledger to `nodes` nodes (fewer is a contract failure: remove nodes by name).
  void resize_nodes(std::size_t nodes) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    PREEMPT_ASSERT(nodes >= by_node_.size(),
                   "nomination_ledger::resize_nodes: shrinking; use remove_node or renumber_nodes");
    grow_nodes(nodes);
  }

  // Node `node` is gone from the cluster and the nodes after it move down by one (as when erasing
  // from a vector): its nominations are dropped, their pods' uids appended to `cleared` (a
  // container of uid_type), and keys taken before stay with their nodes. Returns how many.
  template <class Out>
  std::size_t remove_node(std::size_t node, Out& cleared) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    PREEMPT_ASSERT(node < by_node_.size(), "nomination_ledger::remove_node: no such node");
    const std::size_t dropped = drop_nominations_locked(node, cleared);
    by_node_.erase(by_node_.begin() + static_cast<std::ptrdiff_t>(node));
    keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(node));
    by_pod_.for_each_mut([&](const uid_type&, entry& e) {
      if (e.node > node) --e.node;
    });
    return dropped;
  }

  // The cluster renumbered its nodes: node i becomes node new_index_of[i], or is removed when that
  // is `removed` (its nominations dropped and reported as by remove_node); the ledger then has
  // `nodes` nodes, those no old node maps to without nominations. new_index_of covers every node
  // and maps no two nodes to the same index below `nodes` (contract). Returns how many dropped.
  template <class Out>
  std::size_t renumber_nodes(std::span<const std::size_t> new_index_of, std::size_t nodes,
                             Out& cleared) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    PREEMPT_ASSERT(new_index_of.size() == by_node_.size(),
                   "nomination_ledger::renumber_nodes: the map must cover every node");
    std::size_t dropped = 0;
    std::vector<pod_list, bucket_alloc> buckets(nodes, pod_list(alloc_), bucket_alloc(alloc_));
    std::vector<std::uint64_t, key_alloc> keys(nodes, 0, key_alloc(alloc_));
    for (std::size_t i = 0; i < new_index_of.size(); ++i) {
      const std::size_t to = new_index_of[i];
      if (to == removed) {
        dropped += drop_nominations_locked(i, cleared);
        continue;
      }
      PREEMPT_ASSERT(to < nodes && keys[to] == 0,
                     "nomination_ledger::renumber_nodes: an index out of range, or taken twice");
      buckets[to] = std::move(by_node_[i]);
      keys[to] = keys_[i];
    }
    for (std::uint64_t& k : keys)
      if (k == 0) k = next_key_++;  // a node no old node became
    by_pod_.for_each_mut([&](const uid_type&, entry& e) { e.node = new_index_of[e.node]; });
    by_node_ = std::move(buckets);
    keys_ = std::move(keys);
    return dropped;
  }

  // The key of node `node` (contract: node < node_count()).
  node_key key_of(std::size_t node) const {
    check_no_reader();
    detail::shared_guard lock(mutex_);
    PREEMPT_ASSERT(node < by_node_.size(), "nomination_ledger::key_of: no such node");
    return {keys_[node], node};
  }

  // The index a key's node has now; empty when it was removed.
  std::optional<std::size_t> index_of(node_key key) const {
    check_no_reader();
    detail::shared_guard lock(mutex_);
    return index_of_locked(key);
  }

  // --- pods ---------------------------------------------------------------------------------

  // Upstream "override": nominate `pod` to `node`, replacing any earlier nomination.
  void nominate(const P& pod, std::size_t node) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    check_node(node);
    erase_locked(::preempt::uid_of(pod));
    add_locked(pod, node);
  }

  // Upstream "noop": follow the pod object's own nominated node; none clears the nomination.
  void add_from_object(const P& pod, std::optional<std::size_t> object_nominated_node) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    if (object_nominated_node) check_node(*object_nominated_node);
    erase_locked(::preempt::uid_of(pod));
    if (object_nominated_node) add_locked(pod, *object_nominated_node);
  }

  // The pod object changed (or was re-read): the ledger's copy follows it. Keeps the in-memory
  // nomination when neither the old nor the new object carries one.
  void update(const P& pod, std::optional<std::size_t> old_object_nominated_node,
              std::optional<std::size_t> new_object_nominated_node) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    std::optional<std::size_t> target = new_object_nominated_node;
    if (target) check_node(*target);
    if (!old_object_nominated_node && !new_object_nominated_node)
      if (const entry* held = by_pod_.find(::preempt::uid_of(pod))) target = held->node;
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
    const entry* e = by_pod_.find(uid);
    return e ? std::optional<std::size_t>(e->node) : std::nullopt;
  }

  std::size_t size() const {
    check_no_reader();
    detail::shared_guard lock(mutex_);
    return by_pod_.size();
  }

  // Removes every pod nominated to `node` with priority strictly below `priority`, appending them
  // to `out`; returns how many (none for a node the ledger does not have). A container of uid_type
  // receives the pods' uids, one of P copies of the pods; any other receives pointers to the
  // ledger's copies, valid until the ledger next changes.
  template <class Out>
  std::size_t clear_lower_priority(std::size_t node, std::int32_t priority, Out& out) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    if (node >= by_node_.size()) return 0;
    return clear_lower_priority_locked(node, priority, out);
  }

  // The same on the node `key` names, wherever renumbering moved it: its index now, or empty
  // (nothing cleared) when it was removed.
  template <class Out>
  std::optional<std::size_t> clear_lower_priority(node_key key, std::int32_t priority, Out& out) {
    check_no_reader();
    detail::exclusive_guard lock(mutex_);
    const std::optional<std::size_t> node = index_of_locked(key);
    if (node) clear_lower_priority_locked(*node, priority, out);
    return node;
  }

  // The pods nominated to `node`, in nomination order, without the lock: for single-threaded use
  // (see reader()). Empty for a node the ledger does not have.
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
  template <class>
  friend class detail::user_of;

  // Where a nominated pod is: its node, and the slot holding the ledger's copy.
  struct entry {
    std::size_t node;
    std::size_t slot;
  };
  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;
  using bucket_alloc = rebound<pod_list>;
  using key_alloc = rebound<std::uint64_t>;
  using slot_alloc = rebound<std::optional<P>>;
  using index_alloc = rebound<std::size_t>;
  using pod_map_alloc = rebound<std::pair<uid_type, entry>>;

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

  void check_node(std::size_t node) const noexcept {
    PREEMPT_ASSERT(node < by_node_.size(),
                   "nomination_ledger: no such node (a node index beyond the ledger's nodes; "
                   "add_node or resize_nodes first)");
  }

  void grow_nodes(std::size_t nodes) {
    if (by_node_.size() >= nodes) return;
    by_node_.resize(nodes, pod_list(alloc_));
    while (keys_.size() < nodes) keys_.push_back(next_key_++);
  }

  std::optional<std::size_t> index_of_locked(node_key key) const noexcept {
    if (key.id == 0) return std::nullopt;
    if (key.hint < keys_.size() && keys_[key.hint] == key.id) return key.hint;
    for (std::size_t i = 0; i < keys_.size(); ++i)  // renumbered since the key was taken
      if (keys_[i] == key.id) return i;
    return std::nullopt;
  }

  // A slot holding a copy of `pod`: a free slot's copy is assigned (reusing what it holds), else
  // a new slot is made.
  std::size_t store(const P& pod) {
    std::size_t k;
    if (free_.empty()) {
      slots_.emplace_back();
      free_.reserve(slots_.size());  // room to free every slot without allocating
      k = slots_.size() - 1;
    } else {
      k = free_.back();
      free_.pop_back();
    }
    std::optional<P>& slot = slots_[k];
    if constexpr (std::is_copy_assignable_v<P>) {
      if (slot)
        *slot = pod;
      else
        slot.emplace(pod);
    } else {
      slot.emplace(pod);
    }
    return k;
  }

  void add_locked(const P& pod, std::size_t node) {
    const std::size_t k = store(pod);
    by_node_[node].push_back(&*slots_[k]);
    by_pod_.insert_or_assign(::preempt::uid_of(pod), entry{node, k});
  }

  bool erase_locked(const uid_type& uid) {
    const entry* e = by_pod_.find(uid);
    if (e == nullptr) return false;
    const P* copy = &*slots_[e->slot];
    std::erase(by_node_[e->node], copy);
    free_.push_back(e->slot);  // the copy stays: the next pod stored there reuses it
    by_pod_.erase(uid);
    return true;
  }

  template <class Out>
  std::size_t clear_lower_priority_locked(std::size_t node, std::int32_t priority, Out& out) {
    std::size_t cleared = 0;
    std::erase_if(by_node_[node], [&](const P* p) {
      if (::preempt::priority_of(*p) >= priority) return false;
      report(*p, out);
      free_.push_back(by_pod_.find(::preempt::uid_of(*p))->slot);
      by_pod_.erase(::preempt::uid_of(*p));
      ++cleared;
      return true;
    });
    return cleared;
  }

  // Every nomination on `node` goes (the node itself stays until the caller removes it).
  template <class Out>
  std::size_t drop_nominations_locked(std::size_t node, Out& cleared) {
    for (const P* p : by_node_[node]) {
      report(*p, cleared);
      free_.push_back(by_pod_.find(::preempt::uid_of(*p))->slot);
      by_pod_.erase(::preempt::uid_of(*p));
    }
    const std::size_t n = by_node_[node].size();
    by_node_[node].clear();
    return n;
  }

  template <class Out>
  static void report(const P& p, Out& out) {
    using value = typename Out::value_type;
    if constexpr (std::is_same_v<value, uid_type>)
      out.push_back(::preempt::uid_of(p));
    else if constexpr (std::is_same_v<value, P>)
      out.push_back(p);
    else
      out.push_back(&p);
  }

  void clear_moved() noexcept {
    by_node_.clear();
    keys_.clear();
    slots_.clear();
    free_.clear();
    by_pod_.clear();
  }

  mutable Mutex mutex_;
  Allocator alloc_;
  detail::users users_;
  std::vector<pod_list, bucket_alloc> by_node_;
  std::vector<std::uint64_t, key_alloc> keys_;  // per node, its key's id
  std::uint64_t next_key_ = 1;
  std::deque<std::optional<P>, slot_alloc> slots_;  // a deque: the copies never move
  std::vector<std::size_t, index_alloc> free_;
  detail::flat_map<uid_type, entry, pod_map_alloc> by_pod_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_NOMINATION_LEDGER_HPP
