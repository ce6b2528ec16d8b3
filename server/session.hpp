#pragma once
// One control connection: the protocol's state machine on the server side. A client that vanishes,
// stalls or sends garbage ends its own session only.
#include <array>
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it under C++20
#include <boost/asio.hpp>
#include <deque>
#include <memory>
#include <string>

#include "protocol/frame.hpp"
#include "protocol/messages.hpp"

namespace zc {

class Server;
class TestRun;

class Session : public std::enable_shared_from_this<Session> {
public:
    Session(Server& server, boost::asio::ip::tcp::socket socket, uint64_t id);
    ~Session();
    void start();
    // Sends an error and closes, for a server that cannot take this client at all.
    void refuse(const std::string& reason);

private:
    enum class State { await_hello, await_auth, idle, ready, running, closing };

    void read_next(std::chrono::seconds timeout);
    void handle(const Message& m);
    void welcome(const Hello& hello);
    std::string check_limits(const ServerSpec& spec) const;  // "" = within this server's limits
    void send(const Message& m);
    void flush();
    void fail(const std::string& reason);  // error to the client, then close
    void close();
    void end_test();
    void on_test_event(Message m);  // from the TestRun's thread, via the io_context

    Server& server_;
    boost::asio::ip::tcp::socket socket_;
    boost::asio::steady_timer timer_;
    uint64_t id_;
    std::string peer_;
    State state_ = State::await_hello;
    std::array<char, kFrameHeaderSize> header_{};
    std::string body_;
    std::deque<std::string> outbox_;
    bool writing_ = false;
    bool peer_same_host_ = false;
    int peer_pid_ = 0;
    std::string challenge_;  // sent to the client when the server has a shared key
    std::unique_ptr<TestRun> run_;
};

}  // namespace zc
