#include "control_client.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "system/host_info.hpp"

namespace zc {

ControlClient::ControlClient(const Endpoint& server, std::chrono::milliseconds timeout, const SharedSecret* secret)
    : server_(server) {
    try {
        fd_ = connect_tcp(server, timeout);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string(e.what()) + "\n  Is zcserver running there? Start it with 'zcserver" +
                                 (server.port != 12875 ? " --port " + std::to_string(server.port) : std::string()) +
                                 "' on " + server.host + ", or leave out -H to test over loopback.");
    }
    int one = 1;
    setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    HostInfo me = probe_host();
    std::string nonce = secret ? random_challenge() : "";
    send(Hello{kProtocolVersion, "zcperf " ZCPERF_VERSION, me.boot_id, me.pid, nonce});
    welcome_ = expect<Welcome>(timeout);
    if (!welcome_.auth_challenge.empty()) {
        if (!secret) {
            throw ServerError("this zcserver requires authentication: give the shared key with --auth-key-file FILE");
        }
        if (!secret->verify("server", nonce, welcome_.auth_proof)) {
            throw ServerError("the server could not prove the shared key: a different key, or not the zcserver you "
                              "meant to reach");
        }
        send(Auth{secret->prove("client", welcome_.auth_challenge)});
        welcome_ = expect<Welcome>(timeout);
    }
    if (!welcome_.has_host && welcome_.version == kProtocolVersion) {
        throw ProtocolError("the server's welcome lacks its capabilities");
    }
    if (welcome_.version != kProtocolVersion) {
        throw ServerError("protocol version mismatch: this zcperf speaks version " + std::to_string(kProtocolVersion) +
                          ", the server (" + welcome_.software + ") speaks version " + std::to_string(welcome_.version) +
                          "; run the same zcperf release on both hosts");
    }
    same_host_ = !me.boot_id.empty() && me.boot_id == welcome_.host.boot_id;
}

void ControlClient::send(const Message& m) { write_all(fd_.get(), encode_message(m), std::chrono::seconds(10)); }

Message ControlClient::receive(std::chrono::milliseconds timeout) {
    std::string body;
    try {
        body = read_frame(fd_.get(), kMaxReplyBody, timeout);
    } catch (const ConnectionError& e) {
        throw ConnectionError(std::string(e.what()) + " (server " + server_.host + ":" + std::to_string(server_.port) + ")");
    }
    Message m = decode_body(body);
    if (auto* err = std::get_if<ErrorMsg>(&m)) throw ServerError(err->reason);
    return m;
}

}  // namespace zc
