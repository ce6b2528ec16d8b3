#pragma once
// The TCP kinds' command-line options (TcpParams' rows: tcp_params.hpp) and their check against the run, as three
// groups by the rows that take them (TCP byte streams; plain TCP sockets; --flows' rows), held by the kind's
// module beside its operations table (tcp/tcp_ops.cpp).
namespace zc {

struct KindOptionGroup;  // options/kind_options.hpp
const KindOptionGroup& tcp_option_group();
const KindOptionGroup& tcp_socket_option_group();
const KindOptionGroup& tcp_flows_option_group();

}  // namespace zc
