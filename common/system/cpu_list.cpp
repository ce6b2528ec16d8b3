#include "system/cpu_list.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace zc {

namespace {
int parse_cpu(std::string_view s, std::string_view whole) {
    int v = -1;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0 || v > 65535) {
        throw std::invalid_argument("CPU list '" + std::string(whole) + "': '" + std::string(s) +
                                    "' is not a CPU number");
    }
    return v;
}
}  // namespace

std::vector<int> parse_cpu_list(std::string_view text, char separator) {
    std::vector<int> out;
    std::string_view rest = text;
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.remove_suffix(1);
    if (rest.empty()) return out;
    while (true) {
        size_t sep = rest.find(separator);
        std::string_view item = rest.substr(0, sep);
        size_t dash = item.find('-');
        if (dash == std::string_view::npos) {
            out.push_back(parse_cpu(item, text));
        } else {
            int lo = parse_cpu(item.substr(0, dash), text);
            int hi = parse_cpu(item.substr(dash + 1), text);
            if (hi < lo) throw std::invalid_argument("CPU list '" + std::string(text) + "': range goes down");
            for (int c = lo; c <= hi; ++c) out.push_back(c);
        }
        if (sep == std::string_view::npos) break;
        rest = rest.substr(sep + 1);
    }
    return out;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
    std::vector<int> s = cpus;
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    std::string out;
    for (size_t i = 0; i < s.size();) {
        size_t j = i;
        while (j + 1 < s.size() && s[j + 1] == s[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(s[i]);
        if (j > i) out += '-' + std::to_string(s[j]);
        i = j + 1;
    }
    return out;
}

}  // namespace zc
