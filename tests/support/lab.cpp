#include "lab.hpp"

namespace zc::e2e {

Outcome Lab::in_b(const std::string& cmd, int limit_s) const {
    return run({peer, "--timeout", std::to_string(limit_s), "--", cmd}, std::chrono::seconds(limit_s + 40));
}

}  // namespace zc::e2e
