#pragma once
// One control connection: the protocol's state machine on the server side. A client that vanishes,
// stalls or sends garbage ends its own session only.
#include <array>
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it under C++20
#include <boost/asio.hpp>
#include <deque>
#include <memory>
#include <string>

#include "admission.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"

namespace zc {

class Server;
class TestRun;

class Session : public std::enable_shared_from_this<Session> {
public:
    // A connection in its handshake: `startup` is its slot among --max-startups until it becomes a
    // session (hello, and with a key its proof) and takes a --max-sessions slot instead.
    Session(Server& server, boost::asio::ip::tcp::socket socket, Admission::Ticket startup);
    ~Session();
    void start();

private:
    enum class State { await_hello, await_auth, idle, ready, running, closing };

    bool in_handshake() const { return state_ == State::await_hello || state_ == State::await_auth; }
    std::chrono::steady_clock::duration handshake_left() const;
    bool promote();  // false: refused (sessions full), the connection is ending
    void note(const std::string& what, const char* handshake_kind);  // to the log, or the burst summary
    void read_next(std::chrono::steady_clock::duration timeout);
    void handle(const Message& m);
    void welcome(const Hello& hello);
    std::string check_limits(const HalfSpec& spec) const;  // "" = within this server's limits
    // Opens the test's data listener and answers ready; an --exclusive server first waits (up to
    // `wait_until`) for the test another session runs, or refuses, naming it.
    void prepare_test(const HalfSpec& spec, std::chrono::steady_clock::time_point asked,
                      std::chrono::steady_clock::time_point wait_until);
    void send(const Message& m);
    void flush();
    // Error to the client, then close; `handshake_kind` sums it up in the log before the session began.
    void fail(const std::string& reason, const char* handshake_kind = "handshake failed");
    void close();
    void end_test();
    void on_test_event(Message m);  // from the TestRun's thread, via the io_context

    Server& server_;
    boost::asio::ip::tcp::socket socket_;
    boost::asio::steady_timer timer_;
    Admission::Ticket ticket_;  // a startup slot, then a session slot
    uint64_t id_ = 0;           // given when it becomes a session
    std::chrono::steady_clock::time_point handshake_deadline_;
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
    // The last test that ended with its result: its data connections stay open until the next test, the
    // client's goodbye or an error (served_test.hpp's ended_connections_ says why).
    std::unique_ptr<TestRun> ended_run_;
};

}  // namespace zc
