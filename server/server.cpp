#include "server.hpp"

#include <ctime>
#include <iostream>

#include "session.hpp"

namespace zc {

namespace asio = boost::asio;

Server::Server(ServerOptions options)
    : options_(std::move(options)),
      host_(probe_host()),
      acceptor_(io_),
      signals_(io_, SIGINT, SIGTERM),
      retry_timer_(io_) {
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
            throw std::runtime_error("port " + where + " is already in use (another zcserver?); choose one with --port");
        }
        throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
    }
    acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("listen: " + ec.message());
    port_ = acceptor_.local_endpoint().port();
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
        {
            socket.set_option(asio::ip::tcp::no_delay(true));
            auto session = std::make_shared<Session>(*this, std::move(socket), next_session_id_++);
            ++sessions_;
            if (sessions_ > options_.max_sessions) {
                session->refuse("this zcserver already serves " + std::to_string(options_.max_sessions) +
                                " sessions (its --max-sessions); try again later");
            } else {
                session->start();
            }
        }
        accept_next();
    });
}

}  // namespace zc
