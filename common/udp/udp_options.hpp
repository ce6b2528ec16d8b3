#pragma once
// UDP's option row (--gso-size, into udp/udp_params.hpp's UdpParams), registered by udp/udp_ops.cpp.
namespace zc {

struct KindOptionGroup;  // options/kind_options.hpp
const KindOptionGroup& udp_option_group();

}  // namespace zc
