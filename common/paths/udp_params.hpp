#pragma once
// UDP's own parameter (core/kind_params.hpp): the GSO rows' datagram size, its option row and its wire
// field, registered by this file's module, which udp_ops.cpp links in.
#include <cstdint>

#include "protocol/run_spec.hpp"

namespace zc {

struct UdpParams {
    uint32_t gso_size = 0;  // udp-gso, udp-msgzc (--gso-size): datagram size; 0 = the path MTU's payload
};
inline constexpr KindParamsKey<UdpParams> kUdpParams{"udp"};

// --gso-size as given (0: not given). Defined beside the registration, so whatever reads it links that in.
uint32_t gso_size_of(const TestParams& p);

}  // namespace zc
