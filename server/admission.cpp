#include "admission.hpp"

#include <algorithm>
#include <stdexcept>

namespace zc {

std::string StartupLimits::text() const {
    if (start == full) return std::to_string(full);
    return std::to_string(start) + ":" + std::to_string(rate_percent) + ":" + std::to_string(full);
}

StartupLimits parse_max_startups(const std::string& text) {
    const std::string usage =
        "--max-startups takes START:RATE:FULL (e.g. 64:30:256) or one number N; got '" + text + "'";
    std::array<int, 3> v{};
    int n = 0;
    size_t at = 0;
    while (true) {
        if (n == 3) throw std::invalid_argument(usage);
        size_t colon = text.find(':', at);
        std::string part = text.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6) {
            throw std::invalid_argument(usage);
        }
        v[n++] = std::stoi(part);
        if (colon == std::string::npos) break;
        at = colon + 1;
    }
    StartupLimits l;
    if (n == 1) {
        l.start = l.full = v[0];
        l.rate_percent = 100;
    } else if (n == 3) {
        l.start = v[0];
        l.rate_percent = v[1];
        l.full = v[2];
    } else {
        throw std::invalid_argument(usage);
    }
    if (l.full < 1) throw std::invalid_argument("--max-startups: FULL must be 1 or more; got '" + text + "'");
    if (l.start < 1 || l.start > l.full) {
        throw std::invalid_argument("--max-startups: START must be between 1 and FULL; got '" + text + "'");
    }
    if (l.rate_percent > 100)
        throw std::invalid_argument("--max-startups: RATE is a percentage (0..100); got '" + text + "'");
    return l;
}

SourceKey source_key_v4(const std::array<uint8_t, 4>& v4) {
    SourceKey k;
    k.bytes[0] = 4;
    for (int i = 0; i < 4; ++i) k.bytes[1 + i] = v4[i];
    return k;
}

SourceKey source_key_v6(const std::array<uint8_t, 16>& v6) {
    static constexpr std::array<uint8_t, 12> kMapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::equal(kMapped.begin(), kMapped.end(), v6.begin())) return source_key_v4({v6[12], v6[13], v6[14], v6[15]});
    SourceKey k;
    k.bytes[0] = 6;
    for (int i = 0; i < 8; ++i) k.bytes[1 + i] = v6[i];
    return k;
}

Admission::Ticket& Admission::Ticket::operator=(Ticket&& o) noexcept {
    if (this != &o) {
        release();
        owner_ = o.owner_;
        key_ = o.key_;
        startup_ = o.startup_;
        o.owner_ = nullptr;
    }
    return *this;
}

void Admission::Ticket::release() {
    if (owner_) owner_->release(*this);
    owner_ = nullptr;
}

Admission::Admission(StartupLimits limits, int max_sessions, uint64_t seed)
    : limits_(limits), max_sessions_(max_sessions), rng_(seed) {}

double Admission::drop_probability(int startups) const {
    if (startups < limits_.start) return 0.0;
    if (startups >= limits_.full) return 1.0;
    // sshd's line: RATE % at START, rising linearly to 100 % at FULL.
    double rate = limits_.rate_percent / 100.0;
    return rate + (1.0 - rate) * (startups - limits_.start) / static_cast<double>(limits_.full - limits_.start);
}

Admission::Ticket Admission::admit_startup(const SourceKey& source, Verdict& verdict) {
    if (startups_from(source) >= limits_.per_source) {
        verdict = Verdict::per_source;
        return {};
    }
    if (startups_ >= limits_.full) {
        verdict = Verdict::full;
        return {};
    }
    double p = drop_probability(startups_);
    if (p > 0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p) {
        verdict = Verdict::early_drop;
        return {};
    }
    verdict = Verdict::admit;
    ++startups_;
    ++per_source_[source];
    return Ticket(this, source, true);
}

Admission::Ticket Admission::admit_session() {
    if (sessions_ >= max_sessions_) return {};
    ++sessions_;
    return Ticket(this, SourceKey{}, false);
}

int Admission::startups_from(const SourceKey& source) const {
    auto it = per_source_.find(source);
    return it == per_source_.end() ? 0 : it->second;
}

void Admission::release(const Ticket& t) {
    if (!t.startup_) {
        --sessions_;
        return;
    }
    --startups_;
    auto it = per_source_.find(t.key_);
    if (it != per_source_.end() && --it->second == 0) per_source_.erase(it);
}

}  // namespace zc
