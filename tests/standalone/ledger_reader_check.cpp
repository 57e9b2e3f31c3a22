// A thread that holds a nomination_ledger's reader and calls the ledger (here from inside an
// evaluation that reads the nominations, through the evaluator's observer) would lock it twice:
// undefined behaviour with std::shared_mutex, a deadlock at best. With the reader check on
// (PREEMPT_CHECK_LEDGER_READERS, the default unless NDEBUG; forced on here so that every build
// type tests it) the ledger's contract check stops the program first. Its own executable: the
// check ends the program, so this one installs an assertion handler that verifies the message and
// exits 0, and fails when the call goes through unchecked.
#define PREEMPT_CHECK_LEDGER_READERS 1
#define PREEMPT_ASSERT_HANDLER ledger_check::caught
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ledger_check {
inline const char* expected = nullptr;
[[noreturn]] inline void caught(const char* expr, const char* file, int line, const char* msg) {
  if (expected != nullptr && std::strstr(msg, expected) != nullptr) {
    std::printf("caught as expected: %s\n", msg);
    std::fflush(stdout);
    std::_Exit(0);
  }
  std::printf("%s:%d: unexpected contract violation: %s (%s)\n", file, line, msg, expr);
  std::fflush(stdout);
  std::_Exit(2);
}
}  // namespace ledger_check

#include <cstdint>
#include <span>
#include <vector>

#include "preempt/evaluator.hpp"
#include "preempt/nomination_ledger.hpp"
#include "support/tiny_cluster.hpp"

namespace {

using P = tiny::pod<>;
using ledger_type = preempt::nomination_ledger<P>;

// An observer that, once the attempt has started, nominates the preemptor: a call into the
// ledger while the evaluation holds the ledger's reader.
struct meddling_observer {
  ledger_type* ledger = nullptr;
  const P* pod = nullptr;
  void on_attempt_started(const P&) const { ledger->nominate(*pod, 0); }
};

}  // namespace

int main() {
  const P pods[] = {{1, 1, 0}, {2, 1, 0}};
  const tiny::node<> nodes[] = {{"n0", std::span<const P>(pods, 2), 2}};
  const tiny::cluster<> c{nodes};
  const P preemptor{9, 100, 0};
  ledger_type ledger(1);

  // Readers come and go on this thread: the ledger is usable again once they are gone, also
  // after a reader was moved.
  {
    auto r = ledger.reader();
    auto moved = std::move(r);
    (void)moved.nominated_to(0);
  }
  ledger.nominate(preemptor, 0);
  if (!ledger.remove(preemptor.uid())) return 1;

  ledger_check::expected = "holds its reader";
  preempt::evaluator<tiny::cluster<>, preempt::default_policy, meddling_observer> ev(
      {}, {}, meddling_observer{&ledger, &preemptor});
  (void)ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{}, ledger.reader(),
                    preempt::inline_executor{});
  std::printf("the ledger was called under its own reader and nothing caught it\n");
  return 1;
}
