// rr over rsockets: the TCP rr loops instantiated with rsend/rrecv (rsocket_paths.hpp).
#include "rdma/rsocket_paths.hpp"
#include "socket/socket_rr_loops.hpp"

namespace zc {

template class TcpRrInitiatorOn<HostRrMessage, RsocketCalls>;
template class TcpRrResponderOn<HostRrMessage, RsocketCalls>;

}  // namespace zc
