// preempt::victim_grouping_storage: the evaluator's owner of a grouping's scratch, one object of a
// type it does not know, told apart by type without RTTI.
#include <doctest/doctest.h>

#include <utility>

#include "preempt/victim_grouping.hpp"

namespace victim_grouping_storage_test {

namespace {

// Two types of the same layout whose destructors compile to the same code: a linker folding
// identical functions must not make the storage take one for the other.
struct scratch_a {
  int value = 0;
};
struct scratch_b {
  int value = 0;
};

}  // namespace

TEST_CASE("victim_grouping_storage: one object per type, kept while the type stays the same") {
  preempt::victim_grouping_storage storage;
  scratch_a& a = storage.get<scratch_a>();
  a.value = 7;
  CHECK(&storage.get<scratch_a>() == &a);
  CHECK(storage.get<scratch_a>().value == 7);
  // Asked for another type of the same layout: a fresh, value-initialized object.
  CHECK(storage.get<scratch_b>().value == 0);
  storage.get<scratch_b>().value = 3;
  CHECK(storage.get<scratch_a>().value == 0);
}

TEST_CASE("victim_grouping_storage: moving hands the object over") {
  preempt::victim_grouping_storage from;
  from.get<scratch_a>().value = 5;
  preempt::victim_grouping_storage to(std::move(from));
  CHECK(to.get<scratch_a>().value == 5);
  preempt::victim_grouping_storage other;
  other.get<scratch_b>().value = 9;
  other = std::move(to);
  CHECK(other.get<scratch_a>().value == 5);
}

}  // namespace victim_grouping_storage_test
