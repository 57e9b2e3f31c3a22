// preempt/detail/cache_line.hpp - the alignment that keeps data two threads write apart.
//
// detail::cache_line is the alignment of what one worker writes while another reads nearby: a
// parallel dry run's per-worker state and the evaluator's merge state. Two threads that write
// and read different variables on one cache line move the line between their cores on every
// write (false sharing); on two cores, keeping them apart took a 2-worker dry run of 5000 x 110
// from 1.5x to 1.7x inline. It is 128 bytes: two 64-byte lines, since adjacent-line prefetchers
// (x86) fetch lines in pairs, and 128 is the line of some ARM cores. Under PREEMPT_NO_THREADS
// nothing runs in parallel, so it is only the fundamental alignment and pads nothing.
//
// No allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_CACHE_LINE_HPP
#define PREEMPT_DETAIL_CACHE_LINE_HPP

#include <cstddef>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

#if defined(PREEMPT_NO_THREADS)
inline constexpr std::size_t cache_line = alignof(std::max_align_t);
#else
inline constexpr std::size_t cache_line = 128;
#endif

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_CACHE_LINE_HPP
