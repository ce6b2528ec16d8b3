#include "core/units.hpp"

#include <charconv>
#include <stdexcept>

namespace zc {

namespace {
std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}
}  // namespace

uint64_t parse_size(std::string_view text) {
    std::string_view s = trim(text);
    if (s.empty()) throw std::invalid_argument("empty size");
    uint64_t mult = 1;
    switch (s.back()) {
        case 'k':
        case 'K':
            mult = 1ull << 10;
            break;
        case 'm':
        case 'M':
            mult = 1ull << 20;
            break;
        case 'g':
        case 'G':
            mult = 1ull << 30;
            break;
        case 't':
        case 'T':
            mult = 1ull << 40;
            break;
        default:
            break;
    }
    if (mult != 1) s.remove_suffix(1);
    if (!s.empty() && (s.back() == 'i' || s.back() == 'I')) {
        throw std::invalid_argument("size '" + std::string(text) + "': write 64K, not 64Ki (units are binary)");
    }
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
        throw std::invalid_argument("size '" + std::string(text) + "' is not a number with an optional K/M/G suffix");
    }
    if (value > UINT64_MAX / mult) throw std::invalid_argument("size '" + std::string(text) + "' is too large");
    return value * mult;
}

std::vector<uint64_t> parse_size_list(std::string_view text) {
    std::vector<uint64_t> out;
    std::string_view rest = text;
    while (true) {
        size_t comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        size_t dots = item.find("..");
        if (dots == std::string_view::npos) {
            out.push_back(parse_size(item));
        } else {
            uint64_t lo = parse_size(item.substr(0, dots));
            uint64_t hi = parse_size(item.substr(dots + 2));
            if (lo == 0 || hi < lo) {
                throw std::invalid_argument("range '" + std::string(item) + "' must go from a non-zero size up");
            }
            uint64_t v = lo;
            for (; v <= hi; v *= 2) {
                out.push_back(v);
                if (v > hi / 2) break;
            }
            if (out.back() != hi) out.push_back(hi);
        }
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    return out;
}

std::string format_size(uint64_t bytes) {
    static constexpr const char* suffix[] = {"", "K", "M", "G", "T"};
    int i = 0;
    while (bytes != 0 && bytes % 1024 == 0 && i < 4) {
        bytes /= 1024;
        ++i;
    }
    return std::to_string(bytes) + suffix[i];
}

}  // namespace zc
