#include "session.hpp"

#include <thread>

#include "server.hpp"
#include "system/affinity.hpp"
#include "system/cpu_list.hpp"
#include "served_test.hpp"
#include "kind/spec_rules.hpp"

#include <fmt/format.h>

namespace zc {

namespace asio = boost::asio;

namespace {
// A hello or an authentication proof is a few hundred bytes; a connection that has not proved
// anything yet must not make the server hold the 64 KiB a request may have later.
constexpr size_t kMaxHandshakeBody = 4096;
}  // namespace

Session::Session(Server& server, asio::ip::tcp::socket socket, Admission::Ticket startup)
    : server_(server), socket_(std::move(socket)), timer_(server.io()), ticket_(std::move(startup)) {
    boost::system::error_code ec;
    auto ep = socket_.remote_endpoint(ec);
    peer_ = ec ? "?" : ep.address().to_string() + ":" + std::to_string(ep.port());
}

Session::~Session() { end_test(); }

void Session::start() {
    handshake_deadline_ = std::chrono::steady_clock::now() + server_.options().handshake_timeout;
    read_next(server_.options().handshake_timeout);
}

std::chrono::steady_clock::duration Session::handshake_left() const {
    // At least a tick: a zero timeout means "no timeout" to read_next.
    return std::max<std::chrono::steady_clock::duration>(handshake_deadline_ - std::chrono::steady_clock::now(),
                                                         std::chrono::milliseconds(1));
}

void Session::note(const std::string& what, const char* handshake_kind) {
    if (id_) {
        server_.log("session " + std::to_string(id_) + ": " + what);
    } else {
        server_.note_refusal(handshake_kind, "handshake with " + peer_ + " ended: " + what);
    }
}

bool Session::promote() {
    ticket_ = server_.admission().admit_session();  // gives the startup slot back either way
    if (!ticket_) {
        std::string reason = "this zcserver already serves " + std::to_string(server_.admission().max_sessions()) +
                             " sessions (its --max-sessions); try again later";
        server_.note_refusal("--max-sessions full", "refused " + peer_ + ": " + reason);
        send(ErrorMsg{reason});
        fail("");
        return false;
    }
    id_ = server_.next_session_id();
    server_.log("session " + std::to_string(id_) + ": " + peer_ + " connected");
    return true;
}

void Session::read_next(std::chrono::steady_clock::duration timeout) {
    auto self = shared_from_this();
    if (timeout.count() > 0) {
        timer_.expires_after(timeout);
        timer_.async_wait([this, self, timeout](const boost::system::error_code& ec) {
            if (ec || state_ == State::closing) return;
            if (in_handshake()) {
                return fail("the handshake did not complete within " +
                                std::to_string(server_.options().handshake_timeout.count()) +
                                " s of connecting (zcserver's --handshake-timeout); closing",
                            "handshake timed out");
            }
            auto s = std::chrono::duration_cast<std::chrono::seconds>(timeout).count();
            fail("no control message within " + std::to_string(s) + " s; closing the session");
        });
    } else {
        timer_.cancel();
    }
    asio::async_read(socket_, asio::buffer(header_), [this, self](const boost::system::error_code& ec, size_t) {
        if (ec) {
            if (state_ != State::closing) note(peer_ + " went away (" + ec.message() + ")", "went away");
            close();
            return;
        }
        size_t n = 0;
        try {
            n = decode_frame_header(header_, in_handshake() ? kMaxHandshakeBody : kMaxRequestBody);
        } catch (const ProtocolError& e) {
            fail(e.what());
            return;
        }
        body_.assign(n, '\0');
        asio::async_read(socket_, asio::buffer(body_), [this, self](const boost::system::error_code& ec2, size_t) {
            if (ec2) {
                close();
                return;
            }
            timer_.cancel();
            try {
                handle(decode_body(body_));
            } catch (const ProtocolError& e) {
                fail(e.what());
            } catch (const std::exception& e) {
                fail(e.what());
            }
        });
    });
}

void Session::handle(const Message& m) {
    if (state_ == State::closing) return;
    if (state_ == State::await_hello) {
        const auto* hello = std::get_if<Hello>(&m);
        if (!hello) return fail(std::string("expected hello first, got ") + message_name(m));
        if (hello->version != kProtocolVersion) {
            return fail("protocol version mismatch: this zcserver " ZCPERF_VERSION " speaks version " +
                        std::to_string(kProtocolVersion) + ", the client (" + hello->software + ") speaks version " +
                        std::to_string(hello->version) + "; run the same zcperf release on both hosts");
        }
        peer_same_host_ = !hello->boot_id.empty() && hello->boot_id == server_.host().boot_id;
        peer_pid_ = hello->pid;
        if (!server_.options().secret && !promote()) return;
        return welcome(*hello);
    }
    if (state_ == State::await_auth) {
        const auto* auth = std::get_if<Auth>(&m);
        if (!auth) return fail(std::string("this zcserver requires authentication first, got ") + message_name(m));
        if (!server_.options().secret->verify("client", challenge_, auth->proof)) {
            return fail("authentication failed: the client's key does not match this zcserver's --auth-key-file");
        }
        if (!promote()) return;
        Welcome w;
        w.software = "zcserver " ZCPERF_VERSION;
        w.has_host = true;
        w.host = server_.host();
        w.features = server_features(server_.options().exclusive);
        send(w);
        state_ = State::idle;
        return read_next(server_.options().idle_timeout);
    }
    if (const auto* setup = std::get_if<Setup>(&m)) {
        if (state_ != State::idle) return fail("setup while a test is in progress");
        const HalfSpec& spec = setup->spec;
        const auto& cpus = server_.host().cpus;
        for (int c : spec.side.cpus) {
            if (std::find(cpus.begin(), cpus.end(), c) == cpus.end()) {
                return fail("CPU " + std::to_string(c) + " is not available to zcserver on " + server_.host().hostname +
                            "; its CPUs are " + format_cpu_list(cpus));
            }
        }
        // IRQs may go to any online CPU of the host, whatever this process's binding (zcperf-mpi's ranks are
        // bound to a core each by mpirun, a zcserver.service may be given CPUAffinity=).
        const std::vector<int> online = spec.side.irq_cpus.empty() ? std::vector<int>{} : online_cpus();
        for (int c : spec.side.irq_cpus) {
            if (std::find(online.begin(), online.end(), c) == online.end()) {
                return fail("IRQ CPU " + std::to_string(c) + " is not online on " + server_.host().hostname +
                            "; its online CPUs are " + format_cpu_list(online));
            }
        }
        if (!spec.side.irq_cpus.empty() && !server_.options().allow_irq_affinity) {
            return fail(
                "this zcserver does not let clients move its IRQs; start it with --allow-irq-affinity "
                "(as root) to allow --irq-cpus for the remote side");
        }
        const auto& nodes = server_.host().numa_nodes;
        if (spec.side.mem_node >= 0 && std::find(nodes.begin(), nodes.end(), spec.side.mem_node) == nodes.end()) {
            return fail("NUMA node " + std::to_string(spec.side.mem_node) + " does not exist on " +
                        server_.host().hostname + "; its nodes are " + format_cpu_list(nodes));
        }
        if (std::string over = check_limits(spec); !over.empty()) return fail(over);
        auto now = std::chrono::steady_clock::now();
        return prepare_test(spec, now,
                            now + std::chrono::milliseconds(static_cast<int64_t>(spec.server_wait_s * 1000)));
    }
    if (std::holds_alternative<Start>(m)) {
        if (state_ != State::ready) return fail("start without a prepared test");
        state_ = State::running;
        run_->start();
        return read_next(std::chrono::seconds(0));
    }
    if (std::holds_alternative<Stop>(m)) {
        if (run_) run_->stop();  // the test's end (an error reply) re-arms the idle timer
        return read_next(run_ ? std::chrono::seconds(0) : server_.options().idle_timeout);
    }
    fail(std::string("unexpected ") + message_name(m) + " message from the client");
}

void Session::prepare_test(const HalfSpec& spec, std::chrono::steady_clock::time_point asked,
                           std::chrono::steady_clock::time_point wait_until) {
    using namespace std::chrono;
    ended_run_.reset();  // the test before this one: the client is done with its connections
    auto now = steady_clock::now();
    double waited = duration<double>(now - asked).count();
    std::string what = std::string(transport_name(spec.transport)) + " " + workload_name(spec.test);
    if (server_.options().exclusive && !server_.take_exclusive(id_, peer_, what)) {
        const auto& other = server_.exclusive_test();
        if (now >= wait_until) {
            return fail(fmt::format(
                "this zcserver runs one test at a time (--exclusive), and {}'s {} test has been running for {:.1f} s; "
                "{}",
                other.peer, other.test, duration<double>(now - other.since).count(),
                spec.server_wait_s > 0
                    ? fmt::format("waited {:.1f} s for it (--server-wait); wait longer or try later", waited)
                    : std::string("wait for it with zcperf --server-wait SECS, or try later")));
        }
        // Looked at again every 50 ms until the other test ends or the client's bound is reached; no read is
        // pending meanwhile (the client waits for its ready), so nothing else can arrive.
        auto self = shared_from_this();
        timer_.expires_after(std::min<steady_clock::duration>(milliseconds(50), wait_until - now));
        timer_.async_wait([this, self, spec, asked, wait_until](const boost::system::error_code& ec) {
            if (!ec && state_ != State::closing) prepare_test(spec, asked, wait_until);
        });
        return;
    }
    if (waited >= 0.05)
        server_.log(fmt::format("session {}: waited {:.1f} s for the test before it (--exclusive)", id_, waited));
    std::set<int> exclude{server_.host().pid};
    if (peer_same_host_ && peer_pid_ > 0) exclude.insert(peer_pid_);
    std::weak_ptr<Session> weak = shared_from_this();
    auto& io = server_.io();
    try {
        boost::system::error_code ec;
        std::string local = socket_.local_endpoint(ec).address().to_string();
        if (local.rfind("::ffff:", 0) == 0) local = local.substr(7);
        run_ = std::make_unique<TestRun>(spec, local, exclude, server_.host().hostname, peer_, [weak, &io](Message ev) {
            asio::post(io, [weak, ev = std::move(ev)]() mutable {
                if (auto s = weak.lock()) s->on_test_event(std::move(ev));
            });
        });
    } catch (const std::exception& e) {
        return fail(std::string("cannot prepare the test: ") + e.what());
    }
    server_.log("session " + std::to_string(id_) + ": " + transport_name(spec.transport) + " " +
                workload_name(spec.test) + " " + std::to_string(spec.message_size) + " B x " +
                std::to_string(spec.streams) + " on data port " + std::to_string(run_->data_port()));
    send(Ready{run_->data_port(), run_->token(), waited >= 0.05 ? waited : 0});
    state_ = State::ready;
    return read_next(std::chrono::seconds(0));  // the test's own timeouts bound this phase
}

void Session::welcome(const Hello& hello) {
    Welcome w;
    w.software = "zcserver " ZCPERF_VERSION;
    const auto& secret = server_.options().secret;
    if (secret) {
        // Nothing about this host is told before the client proved the key.
        challenge_ = random_challenge();
        w.auth_challenge = challenge_;
        if (!hello.nonce.empty()) w.auth_proof = secret->prove("server", hello.nonce);
        send(w);
        state_ = State::await_auth;
        return read_next(handshake_left());  // one deadline for the whole handshake
    }
    w.has_host = true;
    w.host = server_.host();
    w.features = server_features(server_.options().exclusive);
    send(w);
    state_ = State::idle;
    read_next(server_.options().idle_timeout);
}

std::string Session::check_limits(const HalfSpec& spec) const {
    const ServerOptions& o = server_.options();
    if (!spec.total_bytes && spec.duration_s > o.max_duration_s) {
        return fmt::format("a test of {} s exceeds this zcserver's limit of {} s (its --max-duration)", spec.duration_s,
                           o.max_duration_s);
    }
    if (spec.streams > o.max_streams) {
        return fmt::format("{} streams exceed this zcserver's limit of {} (its --max-streams)", spec.streams,
                           o.max_streams);
    }
    if (std::string why = spec_problem(spec, server_role(spec.test)); !why.empty()) return why;
    uint64_t need = static_cast<uint64_t>(spec.streams) * buffer_bytes(spec, server_role(spec.test));
    if (need > o.max_buffer_bytes) {
        return fmt::format(
            "the test needs {} MiB of buffers on the server, over its limit of {} MiB (its "
            "--max-buffer-memory); use smaller messages or fewer streams",
            need >> 20, o.max_buffer_bytes >> 20);
    }
    return "";
}

void Session::on_test_event(Message m) {
    if (state_ == State::closing) return;
    bool final_event = !std::holds_alternative<Started>(m) && !std::holds_alternative<IntervalMsg>(m);
    if (const auto* e = std::get_if<ErrorMsg>(&m)) {
        server_.log("session " + std::to_string(id_) + ": test failed: " + e->reason);
    }
    send(m);
    if (final_event) {
        if (std::holds_alternative<ResultMsg>(m)) {  // its connections stay open for the client's read-back
            server_.release_exclusive(id_);
            ended_run_ = std::move(run_);
        } else {
            end_test();
        }
        state_ = State::idle;
        // The pending read stays armed; from now on idle time counts again.
        auto self = shared_from_this();
        timer_.expires_after(server_.options().idle_timeout);
        timer_.async_wait([this, self](const boost::system::error_code& ec) {
            if (!ec && state_ == State::idle) fail("idle for too long; closing the session");
        });
    }
}

void Session::end_test() {
    server_.release_exclusive(id_);
    ended_run_.reset();  // its threads are joined: this closes its connections
    if (!run_) return;
    // Joining the test's threads can take a moment (a blocked send being woken): keep the control
    // loop free for every other session.
    std::thread([run = std::move(run_)]() mutable { run.reset(); }).detach();
}

void Session::send(const Message& m) {
    outbox_.push_back(encode_message(m));
    flush();
}

void Session::flush() {
    if (writing_ || outbox_.empty()) return;
    writing_ = true;
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(outbox_.front()),
                      [this, self](const boost::system::error_code& ec, size_t) {
                          writing_ = false;
                          outbox_.pop_front();
                          if (ec) {
                              outbox_.clear();
                              close();
                              return;
                          }
                          if (outbox_.empty() && state_ == State::closing) {
                              boost::system::error_code ignored;
                              socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
                              socket_.close(ignored);
                              timer_.cancel();  // the close-anyway timer: done, let the session (and its slot) go now
                              return;
                          }
                          flush();
                      });
}

// An empty reason: the client was already told why.
void Session::fail(const std::string& reason, const char* handshake_kind) {
    if (state_ == State::closing) return;
    if (!reason.empty()) {
        note(reason, handshake_kind);
        send(ErrorMsg{reason});
    }
    state_ = State::closing;
    timer_.cancel();
    end_test();
    // A client that never reads must not keep us: give the error a moment, then close anyway.
    auto self = shared_from_this();
    timer_.expires_after(std::chrono::seconds(2));
    timer_.async_wait([this, self](const boost::system::error_code& ec) {
        if (ec) return;
        boost::system::error_code ignored;
        socket_.close(ignored);
    });
}

void Session::close() {
    state_ = State::closing;
    timer_.cancel();
    end_test();
    boost::system::error_code ignored;
    socket_.close(ignored);
}

}  // namespace zc
