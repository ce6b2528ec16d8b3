#pragma once
// Tests that need a transport this build may lack (-DZCPERF_WITH_RDMA=OFF) skip with that reason:
// they never fail for it, and never pass without running.
#include <gtest/gtest.h>

#include "core/transport_registry.hpp"

#define REQUIRE_TRANSPORT_BUILT(t)                                                                               \
    do {                                                                                                         \
        if (!zc::transport_built(t))                                                                             \
            GTEST_SKIP() << "transport '" << zc::transport_name(t) << "' is not in this build (configured with " \
                         << "-DZCPERF_WITH_RDMA=OFF, or rdma-core was not found): this test needs it";           \
    } while (0)

// Every RDMA transport is built or none is: one check for tests that use several.
#define REQUIRE_RDMA_BUILT() REQUIRE_TRANSPORT_BUILT(zc::transport_named("rsocket"))
