// rr over rsockets: the socket rr loops instantiated with rsockets' calls (rsocket_paths.hpp).
#include "rdma/rsocket_paths.hpp"
#include "socket/socket_rr_loops.hpp"

namespace zc {

template class RrInitiator<HostRrMessage, Rsockets>;
template class RrResponder<HostRrMessage, Rsockets>;

}  // namespace zc
