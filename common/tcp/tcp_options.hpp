#pragma once
// The TCP kinds' command-line options (TcpParams' rows: tcp_params.hpp) and their check against the run, as one
// group registered beside the kind's operations table (paths/tcp_ops.cpp).
namespace zc {

struct KindOptionGroup;  // options/kind_options.hpp
const KindOptionGroup& tcp_option_group();

}  // namespace zc
