#pragma once
// Skips the calling test, saying why, when this host cannot run GPU code.
#include <gtest/gtest.h>

#include "cuda/device.hpp"

#define ZC_REQUIRE_GPU()                                                                                          \
    do {                                                                                                          \
        if (::zc::cuda::devices().empty()) GTEST_SKIP() << "no usable GPU: " << ::zc::cuda::unavailable_reason(); \
    } while (0)
