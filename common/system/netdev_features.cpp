#include "system/netdev_features.hpp"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "core/unique_fd.hpp"

namespace zc {

FeatureState feature_state(const NetdevFeatures& f, std::string_view name) {
    FeatureState s;
    for (size_t i = 0; i < f.names.size() && i / 32 < f.blocks.size(); ++i) {
        if (f.names[i] != name) continue;
        const FeatureBlock& b = f.blocks[i / 32];
        const uint32_t bit = 1u << (i % 32);
        s.known = true;
        s.active = b.active & bit;
        s.requested = b.requested & bit;
        s.changeable = (b.available & bit) && !(b.never_changed & bit);
        return s;
    }
    return s;
}

std::string ethtool_words(const FeatureState& s) {
    if (!s.known) return "not known to this kernel";
    std::string w = s.active ? "on" : "off";
    if (!s.changeable) return w + " [fixed]";  // ethtool says one or the other, [fixed] first
    if (s.requested != s.active) w += s.requested ? " [requested on]" : " [requested off]";
    return w;
}

namespace {

bool ethtool_ioctl(int fd, const std::string& interface, void* data, std::string* why, const char* what) {
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, interface.c_str(), interface.size());
    ifr.ifr_data = static_cast<char*>(data);
    if (::ioctl(fd, SIOCETHTOOL, &ifr) == 0) return true;
    if (why) *why = interface + ": SIOCETHTOOL " + what + " failed (" + std::strerror(errno) + ")";
    return false;
}

}  // namespace

std::optional<NetdevFeatures> read_netdev_features(const std::string& interface, std::string* why) {
    if (interface.empty() || interface.size() >= IFNAMSIZ) {
        if (why) *why = "'" + interface + "' is not an interface name";
        return std::nullopt;
    }
    UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd) {
        if (why) *why = std::string("socket() failed: ") + std::strerror(errno);
        return std::nullopt;
    }
    alignas(8) char sset_buf[sizeof(ethtool_sset_info) + sizeof(uint32_t)] = {};
    auto* sset = reinterpret_cast<ethtool_sset_info*>(sset_buf);
    sset->cmd = ETHTOOL_GSSET_INFO;
    sset->sset_mask = 1ull << ETH_SS_FEATURES;
    if (!ethtool_ioctl(fd.get(), interface, sset_buf, why, "ETHTOOL_GSSET_INFO")) return std::nullopt;
    const uint32_t n = sset->sset_mask ? sset->data[0] : 0;
    std::vector<char> strings(sizeof(ethtool_gstrings) + size_t{n} * ETH_GSTRING_LEN);
    auto* gs = reinterpret_cast<ethtool_gstrings*>(strings.data());
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_FEATURES;
    gs->len = n;
    if (!ethtool_ioctl(fd.get(), interface, strings.data(), why, "ETHTOOL_GSTRINGS")) return std::nullopt;
    const uint32_t count = (n + 31) / 32;
    std::vector<char> feat(sizeof(ethtool_gfeatures) + count * sizeof(ethtool_get_features_block));
    auto* gf = reinterpret_cast<ethtool_gfeatures*>(feat.data());
    gf->cmd = ETHTOOL_GFEATURES;
    gf->size = count;
    if (!ethtool_ioctl(fd.get(), interface, feat.data(), why, "ETHTOOL_GFEATURES")) return std::nullopt;
    NetdevFeatures out;
    for (uint32_t i = 0; i < n; ++i) {
        const char* name = reinterpret_cast<const char*>(gs->data) + size_t{i} * ETH_GSTRING_LEN;
        out.names.emplace_back(name, strnlen(name, ETH_GSTRING_LEN));
    }
    for (uint32_t b = 0; b < count; ++b)
        out.blocks.push_back({gf->features[b].available, gf->features[b].requested, gf->features[b].active,
                              gf->features[b].never_changed});
    return out;
}

}  // namespace zc
