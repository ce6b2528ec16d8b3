#pragma once
// The client's end of the control connection: blocking, every read bounded in size and time.
#include <chrono>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "security/shared_secret.hpp"
#include "tcp/tcp_socket.hpp"
#include "core/unique_fd.hpp"

namespace zc {

// The server refused something and said why; printed to the user as is.
struct ServerError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The server turned the connection away before its welcome for a passing reason (too many
// connections in their handshake, see zcserver --max-startups): worth trying again shortly.
struct ServerBusy : ServerError {
    using ServerError::ServerError;
};

class ControlClient {
public:
    // Connects and exchanges hello/welcome. Throws std::runtime_error (unreachable), ServerBusy (turned
    // away, try again), ServerError (refused, e.g. version mismatch) or ProtocolError (not a zcserver).
    // With a secret, the client proves the key when the server asks, and checks the server's proof.
    ControlClient(const Endpoint& server, std::chrono::milliseconds timeout, const SharedSecret* secret = nullptr);

    const Welcome& welcome() const { return welcome_; }
    const Endpoint& server() const { return server_; }
    bool same_host() const { return same_host_; }
    int fd() const { return fd_.get(); }

    void send(const Message& m);
    // Next message; an ErrorMsg is thrown as ServerError.
    Message receive(std::chrono::milliseconds timeout);

    template <typename T>
    T expect(std::chrono::milliseconds timeout) {
        Message m = receive(timeout);
        if (auto* v = std::get_if<T>(&m)) return std::move(*v);
        throw ProtocolError(std::string("the server sent an unexpected ") + message_name(m) + " message");
    }

private:
    Endpoint server_;
    UniqueFd fd_;
    Welcome welcome_;
    bool same_host_ = false;
};

// A ControlClient, trying again with growing, jittered pauses while the server says it is busy, for up
// to `patience`; says so once on `note`. Throws as ControlClient does.
std::unique_ptr<ControlClient> connect_control(const Endpoint& server, std::chrono::milliseconds timeout,
                                               const SharedSecret* secret, std::ostream& note,
                                               std::chrono::milliseconds patience = std::chrono::seconds(15));

}  // namespace zc
