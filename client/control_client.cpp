#include "control_client.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <random>
#include <thread>

#include "system/host_info.hpp"

namespace zc {

ControlClient::ControlClient(const Endpoint& server, std::chrono::milliseconds timeout, const SharedSecret* secret)
    : server_(server) {
    const std::string boot_id = read_boot_id();
    try {
        fd_ = connect_tcp(server, timeout);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string(e.what()) + "\n  Is zcserver running there? Start it with 'zcserver" +
                                 (server.port != 12875 ? " --port " + std::to_string(server.port) : std::string()) +
                                 "' on " + server.host + ", or leave out -H to test over loopback.");
    }
    int one = 1;
    setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::string nonce = secret ? random_challenge() : "";
    try {
        send(Hello{kProtocolVersion, "zcperf " ZCPERF_VERSION, boot_id, static_cast<int>(getpid()), nonce});
        welcome_ = expect<Welcome>(timeout);
    } catch (const ServerError& e) {
        if (std::string_view(e.what()).find(kServerBusy) != std::string_view::npos) throw ServerBusy(e.what());
        throw;
    } catch (const ConnectionError& e) {
        // A server that refuses at once may close before our hello is read; the reset can beat its reason.
        if (std::string_view(e.what()).find("timed out") != std::string_view::npos) throw;
        throw ServerBusy(std::string("the server closed the connection before its welcome (") + e.what() +
                         "): busy with other connections' handshakes, or not a zcserver");
    }
    if (!welcome_.auth_challenge.empty()) {
        if (!secret) {
            throw ServerError("this zcserver requires authentication: give the shared key with --auth-key-file FILE");
        }
        if (!secret->verify("server", nonce, welcome_.auth_proof)) {
            throw ServerError(
                "the server could not prove the shared key: a different key, or not the zcserver you "
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
                          ", the server (" + welcome_.software + ") speaks version " +
                          std::to_string(welcome_.version) + "; run the same zcperf release on both hosts");
    }
    same_host_ = !boot_id.empty() && boot_id == welcome_.host.boot_id;
}

std::unique_ptr<ControlClient> connect_control(const Endpoint& server, std::chrono::milliseconds timeout,
                                               const SharedSecret* secret, std::ostream& note,
                                               std::chrono::milliseconds patience) {
    auto give_up = std::chrono::steady_clock::now() + patience;
    std::minstd_rand rng(std::random_device{}());
    auto pause = std::chrono::milliseconds(50);
    for (int attempt = 1;; ++attempt) {
        try {
            return std::make_unique<ControlClient>(server, timeout, secret);
        } catch (const ServerBusy& e) {
            // Jitter: clients turned away together must not come back together.
            auto wait = pause / 2 + std::chrono::milliseconds(rng() % (pause.count() + 1));
            if (std::chrono::steady_clock::now() + wait > give_up) {
                throw ServerBusy(std::string(e.what()) + " (tried " + std::to_string(attempt) + " times in " +
                                 std::to_string(patience.count() / 1000) + " s)");
            }
            if (attempt == 1) {
                note << "zcperf: " << server.host << ":" << server.port << " turned us away: " << e.what()
                     << "; trying again for up to " << patience.count() / 1000 << " s\n";
            }
            std::this_thread::sleep_for(wait);
            pause = std::min(pause * 2, std::chrono::milliseconds(1000));
        }
    }
}

void ControlClient::send(const Message& m) { write_all(fd_.get(), encode_message(m), std::chrono::seconds(10)); }

Message ControlClient::receive(std::chrono::milliseconds timeout) {
    std::string body;
    try {
        body = read_frame(fd_.get(), kMaxReplyBody, timeout);
    } catch (const ConnectionError& e) {
        throw ConnectionError(std::string(e.what()) + " (server " + server_.host + ":" + std::to_string(server_.port) +
                              ")");
    }
    Message m = decode_body(body);
    if (auto* err = std::get_if<ErrorMsg>(&m)) throw ServerError(err->reason);
    return m;
}

}  // namespace zc
