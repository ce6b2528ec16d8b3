#pragma once
// One side's half of a stream test, for tests that build paths or ask what a half may run.
#include "protocol/run_spec.hpp"

namespace zc::test {

inline HalfSpec half_spec(Transport t, uint64_t message_size, BufferSpec buffer = {}, RxMode rx = RxMode::copy,
                          Workload test = Workload::stream) {
    HalfSpec h;
    h.transport = t;
    h.test = test;
    h.rx = rx;
    h.message_size = message_size;
    h.side.buffer = buffer;
    return h;
}

}  // namespace zc::test
