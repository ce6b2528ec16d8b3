#pragma once
// Which data paths this build has. Adding a transport = one file plus one entry here.
#include <string>
#include <string_view>
#include <vector>

namespace zc {

enum class Transport { tcp, tcp_sendfile, tcp_msgzc, tcp_uringzc };

// How the receiving side of a TCP stream takes the data.
enum class RxMode { copy, zerocopy, splice, trunc };

struct TransportInfo {
    Transport id;
    const char* name;
    const char* summary;
};

const std::vector<TransportInfo>& transport_table();
std::vector<std::string> available_transports();
// Throws std::invalid_argument listing the transports built in when the name is unknown.
Transport transport_from_name(std::string_view name);
const char* transport_name(Transport t);

const char* rx_mode_name(RxMode m);
RxMode rx_mode_from_name(std::string_view name);  // throws std::invalid_argument listing the modes

}  // namespace zc
