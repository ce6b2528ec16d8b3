#pragma once
// A transport kind's own parameters: one struct of the kind's, held under a key of the kind's
// (KindParamsKey<RdmaOptions>{"rdma"}). TestParams::kind_params holds the test's, the same on both sides
// (--tx-depth); SideSpec::kind_params one side's (--rdma-dev LOCAL,REMOTE). The kind's option rows write them
// (options/kind_options.hpp), its field table carries them to the server (protocol/kind_params_wire.hpp) and
// its code reads them with get(): the spec, the CLI and the rules between name no kind. Read at set-up only,
// never inside a loop (a map lookup).
#include <any>
#include <map>
#include <string>

namespace zc {

template <class P>
struct KindParamsKey {
    const char* name;
};

class KindParams {
public:
    // The kind's struct, or its defaults where nothing set it (another kind's test, an older client).
    template <class P>
    const P& get(KindParamsKey<P> key) const {
        if (auto it = by_key_.find(key.name); it != by_key_.end()) return std::any_cast<const P&>(it->second);
        static const P defaults{};
        return defaults;
    }
    // For writing: the kind's struct, made with its defaults on first use.
    template <class P>
    P& set(KindParamsKey<P> key) {
        return std::any_cast<P&>(by_key_.try_emplace(key.name, P{}).first->second);
    }
    bool contains(const std::string& name) const { return by_key_.contains(name); }
    void erase(const std::string& name) { by_key_.erase(name); }

private:
    std::map<std::string, std::any> by_key_;
};

}  // namespace zc
