#include "tcp/crr_close.hpp"

#include <stdexcept>
#include <string>

namespace zc {

const char* crr_close_name(CrrClose c) { return c == CrrClose::rst ? "rst" : "fin"; }

CrrClose crr_close_from_name(std::string_view name) {
    if (name == "rst") return CrrClose::rst;
    if (name == "fin") return CrrClose::fin;
    throw std::invalid_argument("--crr-close '" + std::string(name) +
                                "': use rst (SO_LINGER 0: the client resets, no TIME_WAIT; the default) or fin (an "
                                "orderly close, netperf's: the client's port waits 60 s in TIME_WAIT)");
}

const char* crr_close_method(CrrClose c) {
    return c == CrrClose::rst ? "client closes with SO_LINGER {1,0} (RST): no TIME_WAIT, ports reused at once"
                              : "client closes first (FIN): its ephemeral port waits in TIME_WAIT";
}

}  // namespace zc
