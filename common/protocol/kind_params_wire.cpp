#include "protocol/kind_params_wire.hpp"

namespace zc {

namespace {
// A function's static: the kinds register from other files' static initialisers, in any order.
std::vector<const KindParamsWire*>& wires() {
    static std::vector<const KindParamsWire*> all;
    return all;
}
}  // namespace

bool register_kind_params_wire(const KindParamsWire& wire) {
    wires().push_back(&wire);
    return true;
}

const std::vector<const KindParamsWire*>& kind_params_wires() { return wires(); }

}  // namespace zc
