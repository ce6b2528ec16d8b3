#pragma once
// A network interface's features as `ethtool -k` shows them: the kernel's feature names (the
// ETH_SS_FEATURES string set) and their available/requested/active/never-changed bits (ETHTOOL_GFEATURES),
// read through the SIOCETHTOOL ioctl the way ethtool does, and said in ethtool's words ("off [fixed]").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zc {

// One 32-feature block of ETHTOOL_GFEATURES (struct ethtool_get_features_block).
struct FeatureBlock {
    uint32_t available = 0, requested = 0, active = 0, never_changed = 0;
};

struct NetdevFeatures {
    std::vector<std::string> names;  // index i is bit i % 32 of block i / 32
    std::vector<FeatureBlock> blocks;
};

struct FeatureState {
    bool known = false;  // the kernel names the feature at all
    bool active = false, requested = false, changeable = false;
};
FeatureState feature_state(const NetdevFeatures& f, std::string_view name);

// ethtool -k's words for one feature: "on", "off [fixed]", "off [requested on]"; "not known to this kernel".
std::string ethtool_words(const FeatureState& s);

// The interface's features; nullopt, with `why` set, where the ioctl fails (no such interface, no ethtool ops).
std::optional<NetdevFeatures> read_netdev_features(const std::string& interface, std::string* why = nullptr);

}  // namespace zc
