#pragma once
// crr and cc (netperf's TCP_CRR, TCP_CC) open a connection per transaction. Whoever closes first
// keeps the connection's 4-tuple in TIME_WAIT for 60 s; on the client that is an ephemeral port, and at
// tens of thousands of connections a second the range (net.ipv4.ip_local_port_range, ~28000 ports)
// runs out within seconds on a real link (loopback hides it: tcp_tw_reuse=2 reuses them there). How the
// client closes is therefore a parameter, reported with the result.
#include <string>
#include <string_view>

namespace zc {

// rst: SO_LINGER {1, 0}: close() sends RST, no TIME_WAIT anywhere; a run of any length keeps its
// ports (the default). fin: an orderly close from the client, as netperf does: the client's port sits
// in TIME_WAIT, so a long run across a link ends with "ran out of ephemeral ports".
enum class CrrClose { rst, fin };

const char* crr_close_name(CrrClose c);
CrrClose crr_close_from_name(std::string_view name);  // throws std::invalid_argument listing both
// One line for the report: what the close did and where TIME_WAIT went.
const char* crr_close_method(CrrClose c);

}  // namespace zc
