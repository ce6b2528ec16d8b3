#include "tls/tls_offload.hpp"

#include <linux/tls.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/unique_fd.hpp"
#include "system/topology.hpp"

#ifndef TLS_TX_ZEROCOPY_RO
#define TLS_TX_ZEROCOPY_RO 3  // linux/tls.h since 5.19
#endif

namespace zc {

namespace {

std::string one_direction(const std::string& interface, const NetdevFeatures& f, const char* feature,
                          const char* cannot) {
    FeatureState s = feature_state(f, feature);
    if (s.active) return "";
    return interface + ": " + feature + " " + ethtool_words(s) + ": this NIC cannot " + cannot +
           " TLS records; run without --tls-offload";
}

}  // namespace

std::string tls_offload_refusal(const std::string& interface, const NetdevFeatures& features, bool tx, bool rx) {
    std::string why = tx ? one_direction(interface, features, kTlsTxOffload, "encrypt") : "";
    if (why.empty() && rx) why = one_direction(interface, features, kTlsRxOffload, "decrypt");
    return why;
}

std::string tls_offload_refusal(int fd, bool tx, bool rx) {
    const std::string interface = interface_of_socket(fd);
    if (interface.empty())
        return "--tls-offload: the data socket's interface was not found (getsockname, getifaddrs); run without "
               "--tls-offload";
    std::string why;
    auto features = read_netdev_features(interface, &why);
    if (!features) return "--tls-offload: " + why + ": its TLS offload cannot be read; run without --tls-offload";
    return tls_offload_refusal(interface, *features, tx, rx);
}

std::string tls_offload_refusal_towards(const std::string& host, int family, bool tx, bool rx) {
    addrinfo hints{};
    hints.ai_family = family;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* found = nullptr;
    if (int rc = ::getaddrinfo(host.c_str(), "9", &hints, &found); rc != 0)
        return "--tls-offload: " + host + " does not resolve (" + ::gai_strerror(rc) + ")";
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, ::freeaddrinfo);
    UniqueFd fd(::socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd || ::connect(fd.get(), found->ai_addr, found->ai_addrlen) != 0)
        return "--tls-offload: no route to " + host + " (" + std::strerror(errno) + ")";
    return tls_offload_refusal(fd.get(), tx, rx);
}

std::string set_tx_zerocopy_ro(int fd) {
    unsigned int on = 1;
    if (::setsockopt(fd, SOL_TLS, TLS_TX_ZEROCOPY_RO, &on, sizeof(on)) != 0)
        return errno == ENOPROTOOPT ? "not in this kernel (Linux 5.19+)"
                                    : std::string("refused: ") + std::strerror(errno);
    unsigned int got = 0;
    socklen_t len = sizeof(got);
    if (::getsockopt(fd, SOL_TLS, TLS_TX_ZEROCOPY_RO, &got, &len) != 0) return "set, not read back";
    return got ? "on" : "off after setting it";
}

}  // namespace zc
