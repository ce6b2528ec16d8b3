#include "options/kind_options.hpp"

namespace zc {

namespace {
// A function's static: the kinds register from other files' static initialisers, in any order.
std::vector<const KindOptionGroup*>& groups() {
    static std::vector<const KindOptionGroup*> all;
    return all;
}
}  // namespace

bool register_kind_options(const KindOptionGroup& group) {
    groups().push_back(&group);
    return true;
}

const std::vector<const KindOptionGroup*>& kind_option_groups() { return groups(); }

}  // namespace zc
