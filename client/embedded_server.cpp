#include "embedded_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "server.hpp"
#include "core/unique_fd.hpp"

namespace zc {

EmbeddedServer::EmbeddedServer(const std::string& bind) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    UniqueFd rd(p[0]), wr(p[1]);
    pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive the client
        if (getppid() != parent) _exit(0);
        rd.reset();
        int code = 0;
        try {
            ServerOptions opt;
            opt.bind = bind;
            opt.port = 0;
            opt.verbose = false;
            opt.max_sessions = 4;
            opt.allow_irq_affinity = true;  // the user running zcperf is this server's operator
            Server server(opt);
            uint16_t port = server.port();
            if (::write(wr.get(), &port, sizeof(port)) != sizeof(port)) _exit(1);
            wr.reset();
            server.run();
        } catch (const std::exception& e) {
            std::string msg = std::string("embedded server: ") + e.what();
            if (wr) (void)!::write(wr.get(), msg.data(), msg.size());
            code = 1;
        }
        _exit(code);
    }
    wr.reset();
    pollfd pf{rd.get(), POLLIN, 0};
    char buf[512] = {};
    ssize_t n = ::poll(&pf, 1, 5000) > 0 ? ::read(rd.get(), buf, sizeof(buf)) : -1;
    if (n != sizeof(port_)) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        throw std::runtime_error(n > 0 ? std::string(buf, static_cast<size_t>(n))
                                       : "the embedded server did not start");
    }
    std::memcpy(&port_, buf, sizeof(port_));
}

EmbeddedServer::~EmbeddedServer() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {  // up to 1 s, then force it
        if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
        usleep(10000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
}

}  // namespace zc
