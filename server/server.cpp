#include "server.hpp"

#include <sys/socket.h>

#include <ctime>
#include <iostream>
#include <random>

#include "protocol/messages.hpp"
#include "session.hpp"

namespace zc {

namespace asio = boost::asio;

Server::Server(ServerOptions options)
    : options_(std::move(options)),
      host_(probe_host(options_.probe_gpus ? GpuProbe::with_gpus : GpuProbe::without_gpus)),
      acceptor_(io_),
      signals_(io_),
      retry_timer_(io_),
      burst_timer_(io_),
      admission_(options_.startups, options_.max_sessions,
                 (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}()) {
    boost::system::error_code ec;
    asio::ip::address addr = options_.bind.empty() ? asio::ip::address(asio::ip::address_v6::any())
                                                   : asio::ip::make_address(options_.bind, ec);
    if (ec) throw std::runtime_error("--bind '" + options_.bind + "' is not a numeric IP address");
    asio::ip::tcp::endpoint ep(addr, options_.port);
    acceptor_.open(ep.protocol(), ec);
    if (ec) throw std::runtime_error("cannot open a socket: " + ec.message());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    if (addr.is_v6()) acceptor_.set_option(asio::ip::v6_only(false), ec);
    acceptor_.bind(ep, ec);
    if (ec) {
        std::string where = (options_.bind.empty() ? "*" : options_.bind) + ":" + std::to_string(options_.port);
        if (ec == asio::error::address_in_use) {
            throw std::runtime_error("port " + where +
                                     " is already in use (another zcserver?); choose one with --port");
        }
        throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
    }
    acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("listen: " + ec.message());
    port_ = acceptor_.local_endpoint().port();
    if (!options_.handle_signals) return;
    signals_.add(SIGINT);
    signals_.add(SIGTERM);
    signals_.async_wait([this](const boost::system::error_code& ec, int) {
        if (!ec) stop();
    });
}

void Server::log(const std::string& line) const {
    if (!options_.verbose) return;
    char stamp[32];
    std::time_t t = std::time(nullptr);
    std::strftime(stamp, sizeof(stamp), "%F %T", std::localtime(&t));
    std::cerr << stamp << " zcserver: " << line << std::endl;
}

void Server::run() {
    log("listening on " + (options_.bind.empty() ? std::string("*") : options_.bind) + ":" + std::to_string(port_) +
        " (" + host_.hostname + ", protocol version 1)");
    accept_next();
    // A handler that throws must not take every other session down with it: log and go on.
    while (true) {
        try {
            io_.run();
            return;
        } catch (const std::exception& e) {
            log(std::string("internal error, carrying on: ") + e.what());
        }
    }
}

void Server::stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    burst_timer_.cancel();
    io_.stop();
}

void Server::accept_next() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, asio::ip::tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (ec) {
            // Out of descriptors or memory: accepting again at once would spin. Back off a little.
            log("accept: " + ec.message() + "; retrying in 100 ms");
            retry_timer_.expires_after(std::chrono::milliseconds(100));
            retry_timer_.async_wait([this](const boost::system::error_code& e) {
                if (!e) accept_next();
            });
            return;
        }
        admit(std::move(socket));
        accept_next();
    });
}

namespace {

std::string address_of(const asio::ip::tcp::endpoint& ep) {
    auto a = ep.address();
    if (a.is_v6() && a.to_v6().is_v4_mapped())
        return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).to_string();
    return a.to_string();
}

// Refused before it cost anything: the reason in one frame, written without waiting (a fresh socket's
// send buffer always has room for it), then closed. A zcperf reading its welcome gets the reason.
void refuse_now(asio::ip::tcp::socket& socket, const std::string& reason) {
    std::string frame = encode_message(ErrorMsg{reason});
    [[maybe_unused]] ssize_t n =
        ::send(socket.native_handle(), frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    boost::system::error_code ignored;
    socket.close(ignored);
}

}  // namespace

void Server::admit(asio::ip::tcp::socket socket) {
    boost::system::error_code ec;
    auto peer = socket.remote_endpoint(ec);
    if (ec) return;  // already gone
    SourceKey key = peer.address().is_v6() ? source_key_v6(peer.address().to_v6().to_bytes())
                                           : source_key_v4(peer.address().to_v4().to_bytes());
    Admission::Verdict verdict;
    Admission::Ticket ticket = admission_.admit_startup(key, verdict);
    if (!ticket) {
        const StartupLimits& l = admission_.limits();
        std::string who = address_of(peer);
        std::string reason, kind;
        switch (verdict) {
            case Admission::Verdict::per_source:
                kind = "per-source limit";
                reason = "zcserver is busy: " + std::to_string(l.per_source) + " connections from " + who +
                         " are already in their handshake (its --max-startups-per-source)";
                break;
            case Admission::Verdict::early_drop:
                kind = "early drop";
                reason =
                    "zcserver is busy: " + std::to_string(admission_.startups()) +
                    " connections are in their handshake and it drops some new ones at random (its --max-startups " +
                    l.text() + ")";
                break;
            default:
                kind = "--max-startups full";
                reason = "zcserver is busy: " + std::to_string(admission_.startups()) +
                         " connections are in their handshake, its limit (--max-startups " + l.text() + ")";
                break;
        }
        refuse_now(socket, reason + "; " + kServerBusy);
        note_refusal(kind, "refused " + who + ": " + reason);
        return;
    }
    socket.set_option(asio::ip::tcp::no_delay(true), ec);
    std::make_shared<Session>(*this, std::move(socket), std::move(ticket))->start();
}

void Server::note_refusal(const std::string& kind, const std::string& first_line) {
    ++burst_.total;
    ++burst_.this_tick;
    ++burst_.kinds[kind];
    if (burst_.open) return;
    burst_.open = true;
    burst_.since = std::chrono::steady_clock::now();
    log(first_line + " (more refusals in this burst are summed up when it ends)");
    burst_timer_.expires_after(std::chrono::seconds(1));
    burst_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) burst_tick();
    });
}

// A burst ends after a whole second without a refusal; one that lasts is summed up every minute.
void Server::burst_tick() {
    auto now = std::chrono::steady_clock::now();
    bool over = burst_.this_tick == 0;
    burst_.this_tick = 0;
    if (over || now - burst_.since >= std::chrono::seconds(60)) {
        std::string kinds;
        for (const auto& [k, n] : burst_.kinds) kinds += (kinds.empty() ? "" : ", ") + k + " " + std::to_string(n);
        double s = std::chrono::duration<double>(now - burst_.since).count() - (over ? 1.0 : 0.0);
        char secs[32];
        std::snprintf(secs, sizeof(secs), "%.1f", std::max(s, 0.0));
        log(std::string(over ? "burst over: " : "still refusing: ") + std::to_string(burst_.total) +
            " connections refused or dropped before their session in " + secs + " s (" + kinds + "); " +
            std::to_string(admission_.startups()) + " in handshake, " + std::to_string(admission_.sessions()) +
            " sessions");
        burst_.total = 0;
        burst_.kinds.clear();
        burst_.since = now;
        if (over) {
            burst_.open = false;
            return;
        }
    }
    burst_timer_.expires_after(std::chrono::seconds(1));
    burst_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) burst_tick();
    });
}

bool Server::take_exclusive(uint64_t session, const std::string& peer, const std::string& test) {
    if (exclusive_.session != 0 && exclusive_.session != session) return false;
    exclusive_ = {session, peer, test, std::chrono::steady_clock::now()};
    return true;
}

void Server::release_exclusive(uint64_t session) {
    if (exclusive_.session == session) exclusive_ = {};
}

}  // namespace zc
