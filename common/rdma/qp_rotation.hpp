#pragma once
// The verbs senders' step "the next QP with room, round-robin; if none has any, wait for
// completions and look again", shared by rdma-write/rdma-send (room = credits and send-queue
// space) and rdma-read (room = reads in flight under the window). Inline: it runs per post.
#include <cstddef>
#include <cstdint>

#include "rdma/cq_waiter.hpp"

namespace zc {

// Leaves `q` on a QP for which has_room(q) holds and returns true; false when the wait ended the
// loop (abort, peer gone, a failed completion: `sc` says which). `apply(n)` takes the n completions
// the wait returned and is false on a failed one. Each time every QP was full counts one wait.
template <typename HasRoom, typename Apply>
inline bool next_qp_with_room(size_t& q, size_t nq, HasRoom&& has_room, CqWaiter& waiter, ibv_wc* wc,
                              StreamCounters& sc, Apply&& apply, uint64_t& waits) {
    size_t tried = 0;
    while (!has_room(q)) {
        q = q + 1 == nq ? 0 : q + 1;
        if (++tried < nq) continue;
        ++waits;
        int n = waiter.wait(wc, sc);
        if (n == 0 || !apply(n)) return false;
        tried = 0;
    }
    return true;
}

}  // namespace zc
